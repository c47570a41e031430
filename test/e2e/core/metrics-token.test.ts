import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

const TOKEN = 'scrape-token-0123456789';
let guarded: TestGateway;
let open: TestGateway;

beforeAll(async () => {
  guarded = await startGateway({ env: { GATEWAY_METRICS_TOKEN: TOKEN } });
  open = await startGateway();
});
afterAll(async () => {
  await guarded?.close();
  await open?.close();
});

const scrape = (gw: TestGateway, authorization?: string) => fetch(`${gw.url}/metrics`, { headers: authorization ? { authorization } : {} });

describe('GATEWAY_METRICS_TOKEN', () => {
  it('set: /metrics needs the bearer token; without it or with another, 401 invalid_api_key in the error shape', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`, guarded.adminKey, `Bearer ${guarded.adminKey}`]) {
      const res = await scrape(guarded, authorization);
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({ code: 'invalid_api_key', type: 'authentication_error', param: 'authorization' });
      expect(String(body.error.message)).toContain('GATEWAY_METRICS_TOKEN');
      expect(String(body.error.message)).not.toContain(TOKEN);
    }
    const ok = await scrape(guarded, `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# HELP');
    expect((await fetch(`${guarded.url}/health`)).status).toBe(200);
  });

  it('unset: /metrics stays open', async () => {
    const res = await scrape(open);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# HELP');
  });
});
