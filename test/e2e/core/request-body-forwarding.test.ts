import { describe, expect, it } from 'vitest';
import { gatewayWithFakeOpenAI } from '../../helpers/gateway-with-fake-openai.js';

// A request body that nothing changes reaches an OpenAI-compatible provider as the client's own text
// (no second serialisation); anything that changes it (override_params, a BOM the parser skipped) sends
// the body serialised anew.
const env = gatewayWithFakeOpenAI();

const headers = () => ({
  'content-type': 'application/json',
  'x-gateway-provider': 'openai',
  'x-gateway-custom-host': env.fake.url,
  authorization: 'Bearer k',
});

/** Text that `JSON.stringify(JSON.parse(text))` would not give back: spacing, a float written `1.0`, an integer past 2^53. */
const chatText = (extra = '') =>
  `{ "model" : "gpt-4o",\n  "messages": [ {"role":"user", "content":"hi \\u00e9"} ],\n  "temperature": 1.0, "x_seed_wide": 12345678901234567890${extra} }\n`;

async function post(path: string, body: string, extra: Record<string, string> = {}): Promise<Response> {
  env.fake.reset();
  return env.gw.fetch(path, { method: 'POST', headers: { ...headers(), ...extra }, body });
}

describe('request body forwarding', () => {
  it("sends a non-streamed chat body as the client's text, byte for byte", async () => {
    const text = chatText();
    const res = await post('/v1/chat/completions', text);
    expect(res.status).toBe(200);
    expect(env.fake.lastRequest!.rawBody.toString('utf8')).toBe(text);
  });

  it("appends stream_options to a streamed body's own text, and keeps the added usage chunk from the client", async () => {
    const text = chatText(', "stream": true');
    const res = await post('/v1/chat/completions', text);
    expect(res.status).toBe(200);
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    expect(frames.some((f) => f.includes('"usage"'))).toBe(false);
    expect(env.fake.lastRequest!.rawBody.toString('utf8')).toBe(text.trimEnd().slice(0, -1) + ',"stream_options":{"include_usage":true}}');
  });

  it('sends a streamed body that asks for usage itself as its text, and passes the usage chunk to the client', async () => {
    const text = chatText(', "stream": true, "stream_options": {"include_usage": true}');
    const res = await post('/v1/chat/completions', text);
    expect(res.status).toBe(200);
    expect((await res.text()).includes('"usage":{')).toBe(true);
    expect(env.fake.lastRequest!.rawBody.toString('utf8')).toBe(text);
  });

  it('serialises a streamed body that names stream_options itself (the gateway sets include_usage)', async () => {
    const res = await post('/v1/chat/completions', chatText(', "stream": true, "stream_options": {}'));
    expect(res.status).toBe(200);
    await res.text();
    const sent = env.fake.lastRequest!.rawBody.toString('utf8');
    expect(sent).toBe(JSON.stringify({ ...JSON.parse(chatText(', "stream": true')), stream_options: { include_usage: true } }));
  });

  it('serialises a body that override_params changed', async () => {
    const config = { provider: 'openai', api_key: 'k', custom_host: env.fake.url, override_params: { temperature: 0.5 } };
    const res = await post('/v1/chat/completions', chatText(), { 'x-gateway-config': JSON.stringify(config) });
    expect(res.status).toBe(200);
    const sent = env.fake.lastRequest!.rawBody.toString('utf8');
    expect(sent).toBe(JSON.stringify({ ...JSON.parse(chatText()), temperature: 0.5 }));
  });

  it('serialises a body whose text starts with a byte order mark (the parser skipped it)', async () => {
    const res = await post('/v1/chat/completions', '\ufeff' + chatText());
    expect(res.status).toBe(200);
    expect(env.fake.lastRequest!.rawBody.toString('utf8')).toBe(JSON.stringify(JSON.parse(chatText())));
  });

  it("sends completions and embeddings bodies as the client's text", async () => {
    const completion = '{"model": "gpt-3.5-turbo-instruct", "prompt": "say hi",  "max_tokens": 5}';
    expect((await post('/v1/completions', completion)).status).toBe(200);
    expect(env.fake.lastRequest!.rawBody.toString('utf8')).toBe(completion);
    const embedding = '{ "model": "text-embedding-3-small", "input": ["a", "b"] }';
    expect((await post('/v1/embeddings', embedding)).status).toBe(200);
    expect(env.fake.lastRequest!.rawBody.toString('utf8')).toBe(embedding);
  });

  it('forwards a body nested 1,000 levels deep and refuses one level more with 400 (nothing re-serialises it to find out)', async () => {
    const deep = (levels: number) => chatText(`, "x_deep": ${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}`);
    const ok = await post('/v1/chat/completions', deep(1000));
    expect(ok.status).toBe(200);
    expect(env.fake.lastRequest!.rawBody.toString('utf8')).toBe(deep(1000));
    const refused = await post('/v1/chat/completions', deep(1001));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid_request', message: 'The request is nested too deeply.' } });
    expect(env.fake.requests).toHaveLength(0);
  });

  it('still sends what a route fills in: the moderation model default', async () => {
    const res = await post('/v1/moderations', '{ "input": "hello" }');
    expect(res.status).toBe(200);
    expect(JSON.parse(env.fake.lastRequest!.rawBody.toString('utf8'))).toMatchObject({ input: 'hello', model: expect.any(String) });
  });
});
