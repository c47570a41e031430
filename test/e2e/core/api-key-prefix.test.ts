import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

let plain: TestGateway;
let none: TestGateway;

beforeAll(async () => {
  plain = await startGateway();
  none = await startGateway({ env: { API_KEY_PREFIX: '' } });
});
afterAll(async () => {
  await plain?.close();
  await none?.close();
});

async function create(gw: TestGateway): Promise<{ http: number; key: string; key_hint: string }> {
  const res = await gw.fetch('/v1/api-keys', { method: 'POST', body: JSON.stringify({ name: 'prefix', scopes: ['completions.write'] }) });
  const body = (await res.json()) as { key: string; key_hint: string };
  return { http: res.status, key: body.key, key_hint: body.key_hint };
}

describe('the prefix of generated keys', () => {
  it('is gw_ when API_KEY_PREFIX is not set: gw_ and 48 letters and digits, a shape a secret scanner matches', async () => {
    const k = await create(plain);
    expect(k.http).toBe(201);
    expect(k.key).toMatch(/^gw_[A-Za-z0-9]{48}$/);
    expect(k.key_hint).toMatch(/^gw_[A-Za-z0-9]{4}$/);
    // The key authenticates: it lacks the scope to list keys (403), it is not an unknown key (401).
    const read = await fetch(`${plain.url}/v1/api-keys`, { headers: { authorization: `Bearer ${k.key}` } });
    expect(read.status).toBe(403);
  });

  it('is off when API_KEY_PREFIX is set empty', async () => {
    const k = await create(none);
    expect(k.http).toBe(201);
    expect(k.key).toMatch(/^[A-Za-z0-9]{48}$/);
  });
});
