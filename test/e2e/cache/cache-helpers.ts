import type { TestGateway } from '../../helpers/gateway.js';
import type { FakeOpenAI } from '../../fakes/openai/server.js';

/** An inline config: one openai target at the fake with `cache` set. */
export function cacheConfig(fake: FakeOpenAI, cache: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ provider: 'openai', custom_host: fake.url, ...(cache ? { cache } : {}), ...extra });
}

/** What one non-streamed chat through the gateway answered. */
export interface ChatResult {
  status: number;
  cache: string | null;
  body: any;
}

/** A non-streamed chat completion through the gateway with this config and provider key. */
export async function chat(
  gw: TestGateway,
  config: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<ChatResult> {
  const res = await gw.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'x-gateway-config': config, authorization: 'Bearer sk-a', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, cache: res.headers.get('x-gateway-cache-status'), body: await res.json() };
}

/** A one-message chat body. */
export function ask(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: text },
    ],
    ...extra,
  };
}

/** Chat calls the fake received. */
export function chatCalls(fake: FakeOpenAI): number {
  return fake.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
}

/** Embedding calls the fake received. */
export function embeddingCalls(fake: FakeOpenAI): Array<{ model: string; input: unknown }> {
  return fake.requests.filter((r) => r.path.endsWith('/embeddings')).map((r) => r.body);
}

/** The value of a counter line in the gateway's /metrics text (0 when absent). */
export async function metric(gw: TestGateway, line: string): Promise<number> {
  const text = await (await gw.fetch('/metrics')).text();
  const row = text.split('\n').find((l) => l.startsWith(line + ' '));
  return row ? Number(row.slice(line.length + 1)) : 0;
}
