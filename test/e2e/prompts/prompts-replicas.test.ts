import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';

let a: TestGateway;
let b: TestGateway;
const adminKey = `admin-${randomId(24)}`;

/** fetch on a replica with the admin key both replicas share. */
const on = (gw: TestGateway, path: string, init: RequestInit = {}) =>
  gw.fetch(path, { ...init, headers: { 'x-gateway-api-key': adminKey } });

beforeAll(async () => {
  const env = { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:`, GATEWAY_ADMIN_KEY: adminKey };
  a = await startGateway({ store: 'postgres', env });
  b = await startGateway({ store: 'postgres', pgSchema: a.pgSchema, env });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function renderOn(gw: TestGateway, ref: string): Promise<{ status: number; content?: string }> {
  const res = await on(gw, `/v1/prompts/${ref}/render`, { method: 'POST', body: JSON.stringify({ variables: { who: 'B' } }) });
  const body = (await res.json()) as { data?: { messages: Array<{ content: string }> } };
  return { status: res.status, content: body.data?.messages[0]?.content };
}

async function eventually(fn: () => Promise<unknown>, expected: unknown): Promise<void> {
  const until = Date.now() + 3000;
  for (;;) {
    const got = await fn();
    try {
      expect(got).toEqual(expected);
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('prompts across two replicas (PostgreSQL + Redis)', () => {
  it('a prompt written on one replica renders on the other, and publishing moves both', async () => {
    const created = await on(a, '/v1/prompts', {
      method: 'POST',
      body: JSON.stringify({ name: 'shared', slug: 'shared', string: 'v1 for {{who}}' }),
    });
    expect(created.status).toBe(201);
    await eventually(() => renderOn(b, 'shared'), { status: 200, content: 'v1 for B' });
    expect((await on(a, '/v1/prompts/shared', { method: 'PUT', body: JSON.stringify({ string: 'v2 for {{who}}' }) })).status).toBe(200);
    await eventually(() => renderOn(b, 'shared@latest'), { status: 200, content: 'v2 for B' });
    expect(await renderOn(b, 'shared')).toEqual({ status: 200, content: 'v1 for B' });
    await on(a, '/v1/prompts/shared/makeDefault', { method: 'PUT', body: JSON.stringify({ version: 2 }) });
    await eventually(() => renderOn(b, 'shared'), { status: 200, content: 'v2 for B' });
    await on(a, '/v1/prompts/shared', { method: 'DELETE' });
    await eventually(async () => (await renderOn(b, 'shared')).status, 404);
  });
});
