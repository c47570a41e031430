import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Portkey } from 'portkey-ai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

const OPENAI_KEY = 'sk-openai-portkey';

/** A Portkey client switches to the gateway by its base URL: its `x-portkey-*` headers are read as ours. */
describe('the portkey-ai SDK with only its base URL changed', () => {
  let openai: FakeOpenAI;
  let gw: TestGateway;

  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await openai?.close();
  });
  beforeEach(() => openai.reset());

  const portkeyHeadersSeenUpstream = () => Object.keys(openai.lastRequest!.headers).filter((h) => h.startsWith('x-portkey-'));

  it('provider, provider key and custom host as Portkey headers; no x-portkey header reaches the provider', async () => {
    const client = new Portkey({
      apiKey: gw.adminKey,
      baseURL: `${gw.url}/v1`,
      provider: 'openai',
      Authorization: `Bearer ${OPENAI_KEY}`,
      customHost: openai.url,
    });
    const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello portkey' }] });
    expect(answer.choices?.[0]?.message?.content).toContain('hello portkey');
    expect(openai.lastRequest!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(portkeyHeadersSeenUpstream()).toEqual([]);
  });

  it('a config object and metadata: conditional routing reads the metadata', async () => {
    const config = {
      strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $eq: 'gold' } }, then: 'gold' }], default: 'base' },
      targets: [
        { name: 'gold', provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url, override_params: { model: 'gpt-gold' } },
        { name: 'base', provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url },
      ],
    };
    const client = new Portkey({ apiKey: gw.adminKey, baseURL: `${gw.url}/v1`, config, metadata: { tier: 'gold' } });
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(openai.lastRequest!.body.model).toBe('gpt-gold');
    expect(portkeyHeadersSeenUpstream()).toEqual([]);
  });

  it('a stored config by slug, and a trace id answered in our header', async () => {
    const stored = await gw.fetch('/v1/configs', {
      method: 'POST',
      body: JSON.stringify({ name: 'pk', slug: 'pk-openai', config: { provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url } }),
    });
    expect(stored.status).toBe(201);
    const client = new Portkey({ apiKey: gw.adminKey, baseURL: `${gw.url}/v1`, config: 'pk-openai', traceID: 'trace-from-portkey' });
    const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'traced' }] });
    expect(answer.choices?.[0]?.message?.content).toContain('traced');
    // The SDK shows only x-portkey-* answer headers; the gateway answers with its own.
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-portkey-api-key': gw.adminKey,
        'x-portkey-config': 'pk-openai',
        'x-portkey-trace-id': 'trace-from-portkey',
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'traced' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-trace-id')).toBe('trace-from-portkey');
    expect(res.headers.get('x-gateway-request-id')).toBeTruthy();
  });

  it('a bad value in a Portkey header is refused naming our header; a wrong Portkey key is 401', async () => {
    const bad = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-portkey-api-key': gw.adminKey,
        'x-portkey-provider': 'openai',
        'x-portkey-request-timeout': 'soon',
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('x-gateway-request-timeout');
    const wrong = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-portkey-api-key': 'nope' },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    expect(openai.requests).toHaveLength(0);
  });

  it('our header wins over its Portkey alias', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${OPENAI_KEY}`,
        'x-gateway-api-key': gw.adminKey,
        'x-portkey-api-key': 'ignored',
        'x-gateway-provider': 'openai',
        'x-portkey-provider': 'anthropic',
        'x-gateway-custom-host': openai.url,
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'ours' }] }),
    });
    expect(res.status).toBe(200);
    expect(openai.lastRequest!.path).toBe('/v1/chat/completions');
  });
});
