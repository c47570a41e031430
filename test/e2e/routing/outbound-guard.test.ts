import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../../../src/foundation/lib/outbound-policy.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

/** A loopback listener standing for an internal service: it counts every connection it accepts. */
let internal: Server;
let port = 0;
let connections = 0;
let fake: FakeOpenAI;
let gw: TestGateway;
let rebinds = 0;

/** `rebind.test` is public for its first lookup and loopback afterwards; `trusted.test` (listed as trusted) and `localhost` (not) are loopback. */
const resolve: Resolver = async (host) => {
  if (host === 'rebind.test') return rebinds++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
  if (host === 'trusted.test' || host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  internal = createServer((_req, res) => res.end('{}'));
  internal.on('connection', () => connections++);
  await new Promise<void>((done) => internal.listen(0, '127.0.0.1', done));
  port = (internal.address() as AddressInfo).port;
  fake = await startFakeOpenAI();
  gw = await startGateway({ env: { TRUSTED_CUSTOM_HOSTS: 'trusted.test' }, resolve });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
  await new Promise<void>((done) => internal.close(() => done()));
});
beforeEach(() => {
  connections = 0;
});

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const chat = (headers: Record<string, string>) =>
  gw
    .fetch('/v1/chat/completions', {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'q' }] }),
    })
    .then(json);

describe('outbound calls are checked when the connection is opened', () => {
  it('a custom host that re-resolves to loopback after the pre-check is refused with 400, never connected', async () => {
    rebinds = 0;
    const res = await chat({
      'x-gateway-provider': 'openai',
      authorization: 'Bearer sk',
      'x-gateway-custom-host': `http://rebind.test:${port}/v1`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'custom_host' });
    expect(res.body.error.message).toContain('127.0.0.1');
    expect(rebinds).toBe(2);
    expect(connections).toBe(0);
  });

  it('an IPv4-mapped IPv6 loopback custom host is refused', async () => {
    for (const host of [`[::ffff:127.0.0.1]:${port}`, `[::ffff:169.254.169.254]`]) {
      const res = await chat({ 'x-gateway-provider': 'openai', authorization: 'Bearer sk', 'x-gateway-custom-host': `http://${host}/v1` });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('custom_host');
    }
    expect(connections).toBe(0);
  });

  it("a provider's fixed default URL is not checked (ollama on localhost, untrusted here): it fails only to connect", async () => {
    const res = await chat({ 'x-gateway-provider': 'ollama' });
    expect(res.body.error.param).not.toBe('custom_host');
    expect(res.body.error.code).toBe('provider_unreachable');
  });

  it('a trusted host name is allowed to resolve to loopback', async () => {
    const res = await chat({
      'x-gateway-provider': 'openai',
      authorization: 'Bearer sk',
      'x-gateway-custom-host': fake.url.replace('127.0.0.1', 'trusted.test'),
    });
    expect(res.status).toBe(200);
  });
});

describe('provider fields that become part of a URL', () => {
  const attack = () => `x@127.0.0.1:${port}/#`;

  it("a config's cloud1_region that would move the Bedrock host is 400 invalid_config, never connected", async () => {
    const config = { provider: 'bedrock', api_key: 'k', cloud1_region: attack() };
    const res = await chat({ 'x-gateway-config': JSON.stringify(config) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_config', param: 'config.cloud1_region' });
    expect(connections).toBe(0);
  });

  it("a virtual key's stored cloud1_region is refused where the URL is built, never connected", async () => {
    const created = await json(
      await gw.fetch('/v1/virtual-keys', {
        method: 'POST',
        body: JSON.stringify({ name: 'aws', slug: 'aws-attack', provider: 'bedrock', key: 'k', config: { cloud1_region: attack() } }),
      }),
    );
    expect(created.status).toBe(201);
    const res = await chat({ 'x-gateway-virtual-key': 'aws-attack' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'cloud1_region' });
    expect(connections).toBe(0);
  });
});
