import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { CustomHostGuard } from '../../routing/custom-host-guard.js';
import { HttpClient } from './http-client.js';
import { OutboundPolicy, type Resolver } from './outbound-policy.js';

/** A loopback listener that counts the connections it accepts. */
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  connections = 0;
});

/** `rebind.test` answers a public address once, then loopback (DNS rebinding); `trusted.test` and `inside.test` are loopback. */
function rebindingResolver(): { resolve: Resolver; calls: string[] } {
  const calls: string[] = [];
  let rebinds = 0;
  const resolve: Resolver = async (host) => {
    calls.push(host);
    if (host === 'rebind.test') return rebinds++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    if (host === 'trusted.test' || host === 'inside.test') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  return { resolve, calls };
}

async function refusal(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}

describe('the guarded connector', () => {
  it('refuses at connect time a name that passed the pre-check and then resolves to loopback', async () => {
    const { resolve, calls } = rebindingResolver();
    const policy = new OutboundPolicy({ trusted: ['trusted.test'], resolve });
    const http = new HttpClient({ outbound: policy });
    try {
      const url = `http://rebind.test:${port}/v1/chat`;
      await new CustomHostGuard(policy).check(url);
      const err = await refusal(http.send({ url, method: 'GET', headers: {} }));
      expect(err.status).toBe(400);
      expect(err.code).toBe('invalid_request');
      expect(err.param).toBe('custom_host');
      expect(err.message).toContain("'rebind.test' resolves to a private address (127.0.0.1, loopback)");
      expect(calls).toEqual(['rebind.test', 'rebind.test']);
      expect(connections).toBe(0);
    } finally {
      await http.close();
    }
  });

  it('refuses literal non-public addresses, IPv4-mapped IPv6 included, without connecting (buffered calls too)', async () => {
    const http = new HttpClient({ outbound: new OutboundPolicy({ trusted: [], resolve: rebindingResolver().resolve }) });
    try {
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', 'inside.test']) {
        const url = `http://${host}:${port}/x`;
        expect((await refusal(http.send({ url, method: 'GET', headers: {} }))).param).toBe('custom_host');
        expect((await refusal(http.sendBuffered({ url, method: 'GET', headers: {} }))).status).toBe(400);
      }
      expect(connections).toBe(0);
    } finally {
      await http.close();
    }
  });

  it('connects to trusted hosts, and to operator-fixed origins without the check', async () => {
    const http = new HttpClient({
      outbound: new OutboundPolicy({ trusted: ['trusted.test'], resolve: rebindingResolver().resolve }),
      fixedOrigins: [`http://localhost:${port}/v1`],
    });
    try {
      const trusted = await http.sendText({ url: `http://trusted.test:${port}/x`, method: 'GET', headers: {} });
      expect(trusted.text).toBe('ok');
      const fixed = await http.sendText({ url: `http://localhost:${port}/v1/models`, method: 'GET', headers: {} });
      expect(fixed.text).toBe('ok');
      expect(connections).toBe(2);
    } finally {
      await http.close();
    }
  });

  it('leaves DNS failures to the usual 502', async () => {
    const http = new HttpClient({ outbound: new OutboundPolicy({ trusted: [], resolve: rebindingResolver().resolve }) });
    try {
      const err = await refusal(http.send({ url: 'http://nowhere.test/x', method: 'GET', headers: {} }));
      expect(err.code).toBe('provider_unreachable');
    } finally {
      await http.close();
    }
  });
});

describe('OutboundPolicy.vet', () => {
  const policy = new OutboundPolicy({ trusted: ['Trusted.Test', '[::1]'], resolve: rebindingResolver().resolve });

  it('trusts listed names and literals whatever they resolve to', async () => {
    await expect(policy.vet('trusted.test')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    await expect(policy.vet('[::1]')).resolves.toEqual([{ address: '::1', family: 6 }]);
  });

  it('refuses untrusted non-public literals and names', async () => {
    for (const host of ['10.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1', 'inside.test'])
      await expect(policy.vet(host)).rejects.toThrow(/private address/);
    await expect(policy.vet('8.8.8.8')).resolves.toHaveLength(1);
  });
});
