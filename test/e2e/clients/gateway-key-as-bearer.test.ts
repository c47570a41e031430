import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { startFakeAnthropic, apiKeyOf, type FakeAnthropic } from '../../fakes/anthropic/server.js';

const OPENAI_KEY = 'sk-openai-bearer';
const ANTHROPIC_KEY = 'sk-ant-bearer';
const chatBody = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });

describe('the gateway key as a plain bearer (Authorization, and x-api-key on the Messages routes)', () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gw: TestGateway;
  let key: string;
  const toOpenAI = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url, ...extra });

  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    gw = await startGateway();
    const created = await gw.fetch('/v1/api-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'bearer client', scopes: ['completions.write'] }),
    });
    expect(created.status).toBe(201);
    key = ((await created.json()) as { key: string }).key;
  });
  afterAll(async () => {
    await gw?.close();
    await openai?.close();
    await anthropic?.close();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  const post = (path: string, headers: Record<string, string>, body = chatBody) =>
    fetch(gw.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('authenticates Authorization: Bearer <gateway key> and never sends it upstream', async () => {
    const res = await post('/v1/chat/completions', { authorization: `Bearer ${key}`, 'x-gateway-config': toOpenAI() });
    expect(res.status).toBe(200);
    expect(openai.lastRequest!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it('does not forward the bearer gateway key even when forward_headers names authorization', async () => {
    const config = JSON.stringify({ provider: 'openai', custom_host: openai.url, forward_headers: ['authorization'] });
    const res = await post('/v1/chat/completions', { authorization: `Bearer ${key}`, 'x-gateway-config': config });
    // No provider key left: the gateway key is not one.
    expect(res.status).toBe(400);
    expect(openai.requests).toHaveLength(0);
  });

  it('with x-gateway-api-key present, Authorization is the provider key', async () => {
    const res = await post('/v1/chat/completions', {
      'x-gateway-api-key': key,
      authorization: `Bearer ${OPENAI_KEY}`,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': openai.url,
    });
    expect(res.status).toBe(200);
    expect(openai.lastRequest!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it('a bearer that is not a gateway key, without x-gateway-api-key, is 401 invalid_api_key', async () => {
    const res = await post('/v1/chat/completions', { authorization: `Bearer ${OPENAI_KEY}`, 'x-gateway-config': toOpenAI() });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect(openai.requests).toHaveLength(0);
  });

  it('x-api-key authenticates only on the Messages routes', async () => {
    const chat = await post('/v1/chat/completions', { 'x-api-key': key, 'x-gateway-config': toOpenAI() });
    expect(chat.status).toBe(401);
    const config = JSON.stringify({
      provider: 'anthropic',
      api_key: ANTHROPIC_KEY,
      custom_host: anthropic.url,
      forward_headers: ['x-api-key'],
    });
    const body = JSON.stringify({ model: 'claude-sonnet-4-20250514', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    const msg = await post('/v1/messages', { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'x-gateway-config': config }, body);
    expect(msg.status).toBe(200);
    expect(apiKeyOf(anthropic.lastRequest!)).toBe(ANTHROPIC_KEY);
    const count = await post(
      '/v1/messages/count_tokens',
      { 'x-api-key': key, 'x-gateway-config': config },
      JSON.stringify({ model: 'claude-sonnet-4-20250514', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(count.status).toBe(200);
    for (const r of anthropic.requests) expect(JSON.stringify(r.headers)).not.toContain(key);
  });

  it('works with the openai SDK given only baseURL and the gateway key', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0, defaultHeaders: { 'x-gateway-config': toOpenAI() } });
    const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'sdk' }] });
    expect(answer.choices[0]!.message.content).toContain('sdk');
    expect(openai.lastRequest!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });
});
