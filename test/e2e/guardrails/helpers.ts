/** Shared helpers of the guardrail end-to-end tests. */
import type { TestGateway } from '../../helpers/gateway.js';
import type { FakeOpenAI } from '../../fakes/openai/server.js';

/** A config for the OpenAI fake plus `extra` keys (guardrails, hooks, targets...). */
export function fakeConfig(fake: FakeOpenAI, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { provider: 'openai', api_key: 'sk-good', custom_host: fake.url, ...extra };
}

/** The `x-gateway-config` header for a config. */
export function configHeader(config: Record<string, unknown> | string): Record<string, string> {
  return { 'x-gateway-config': typeof config === 'string' ? config : JSON.stringify(config) };
}

/** A raw chat request through the gateway; returns status, parsed body (JSON answers) or text (streams), headers. */
export async function chat(
  gw: TestGateway,
  config: Record<string, unknown> | string,
  text: string,
  opts: { stream?: boolean; metadata?: Record<string, string>; model?: string } = {},
): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const headers: Record<string, string> = { ...configHeader(config) };
  if (opts.metadata) headers['x-gateway-metadata'] = JSON.stringify(opts.metadata);
  const res = await gw.fetch('/v1/chat/completions', {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: opts.model ?? 'gpt-4o', stream: opts.stream === true, messages: [{ role: 'user', content: text }] }),
  });
  const raw = await res.text();
  let body: any;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text: raw, headers: res.headers };
}

/** The `data:` payloads of an SSE text. */
export function sseFrames(text: string): string[] {
  return text
    .split('\n\n')
    .map((f) => f.trim())
    .filter((f) => f.startsWith('data: '))
    .map((f) => f.slice(6));
}

/** The concatenated `delta.content` of SSE frames. */
export function streamedText(text: string): string {
  return sseFrames(text)
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d))
    .map((c) => c.choices?.[0]?.delta?.content ?? '')
    .join('');
}

/** Polls `fn` until it returns a truthy value (or fails after `ms`). */
export async function eventually<T>(fn: () => Promise<T | undefined> | T | undefined, ms = 3000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
