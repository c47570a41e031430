import { describe, expect, it } from 'vitest';
import { gatewayWithFakeOpenAI } from '../../helpers/gateway-with-fake-openai.js';

const env = gatewayWithFakeOpenAI();

const headers = () => ({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': env.fake.url, authorization: 'Bearer k' });
const body = (stream: boolean) =>
  JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'alpha beta gamma delta' }] });

describe('passthrough and streaming', () => {
  it('passes an OpenAI-compatible answer through byte for byte', async () => {
    const direct = await (
      await fetch(env.fake.url + '/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: body(false),
      })
    ).text();
    const via = await (await env.gw.fetch('/v1/chat/completions', { method: 'POST', headers: headers(), body: body(false) })).text();
    expect(via).toBe(direct);
    // A stream whose client asked for usage is passed through unchanged (the gateway asks for usage anyway).
    const withUsage = JSON.stringify({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'alpha beta gamma delta' }],
    });
    const directStream = await (
      await fetch(env.fake.url + '/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: withUsage,
      })
    ).text();
    const viaStream = await (await env.gw.fetch('/v1/chat/completions', { method: 'POST', headers: headers(), body: withUsage })).text();
    expect(directStream).toContain('"usage":{');
    expect(viaStream).toBe(directStream);
  });

  it('a stream whose client did not ask for usage gets the same chunks without the usage chunk', async () => {
    const frames = (text: string) =>
      text
        .split('\n\n')
        .filter((f) => f.startsWith('data: {'))
        .map((f) => JSON.parse(f.slice(6)));
    const withUsage = JSON.stringify({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'alpha beta gamma delta' }],
    });
    const direct = frames(
      await (
        await fetch(env.fake.url + '/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
          body: withUsage,
        })
      ).text(),
    );
    const viaText = await (await env.gw.fetch('/v1/chat/completions', { method: 'POST', headers: headers(), body: body(true) })).text();
    const via = frames(viaText);
    expect(viaText.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(via.some((c) => c.usage)).toBe(false);
    const strip = (chunks: any[]) => chunks.filter((c) => c.choices.length > 0).map((c) => ({ ...c, id: undefined, usage: undefined }));
    expect(strip(via)).toEqual(strip(direct));
  });

  it('strict_compat_compliance keeps only common-schema fields', async () => {
    const res = await env.gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { ...headers(), 'x-gateway-config': JSON.stringify({ passthrough: true, strict_compat_compliance: true }) },
      body: body(false),
    });
    const json = (await res.json()) as any;
    expect(json.choices[0].message).toEqual({ role: 'assistant', content: 'echo: alpha beta gamma delta', refusal: null });
    expect(Object.keys(json).sort()).toEqual(['choices', 'created', 'id', 'model', 'object', 'system_fingerprint', 'usage']);
  });

  it('the client sees the first chunk before the upstream sends the last', async () => {
    env.fake.fail({ pauseAfterChunks: { after: 2, ms: 800 } });
    const t0 = Date.now();
    const res = await env.gw.fetch('/v1/chat/completions', { method: 'POST', headers: headers(), body: body(true) });
    const reader = res.body!.getReader();
    const first = await reader.read();
    const firstAt = Date.now() - t0;
    expect(first.done).toBe(false);
    expect(Buffer.from(first.value!).toString()).toContain('chat.completion.chunk');
    while (!(await reader.read()).done);
    const lastAt = Date.now() - t0;
    expect(firstAt).toBeLessThan(400);
    expect(lastAt).toBeGreaterThanOrEqual(750);
  });

  it('a client that disconnects aborts the upstream call', async () => {
    const before = env.fake.abortedResponses;
    env.fake.fail({ pauseAfterChunks: { after: 1, ms: 1500 } });
    const controller = new AbortController();
    const res = await env.gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: headers(),
      body: body(true),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const t0 = Date.now();
    while (env.fake.abortedResponses === before && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 20));
    expect(env.fake.abortedResponses).toBe(before + 1);
    expect(Date.now() - t0).toBeLessThan(1400);
    // The request is still accounted for: its log row says the client closed it (499).
    const traceId = res.headers.get('x-gateway-trace-id');
    let rows: Array<{ status: number }> = [];
    while (rows.length === 0 && Date.now() - t0 < 5000) {
      await new Promise((r) => setTimeout(r, 50));
      rows = ((await (await env.gw.fetch(`/v1/logs?trace_id=${traceId}`)).json()) as { data: Array<{ status: number }> }).data;
    }
    expect(rows.map((r) => r.status)).toEqual([499]);
  });
});
