import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { PG_URL, REDIS_URL } from '../../helpers/gateway.js';
import { dropPostgresSchema, openStore } from '../../../src/infra/store/store.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

let one: GatewayProcess;
let two: GatewayProcess;
let a: FakeOpenAI;
let b: FakeOpenAI;
const schema = `t_${randomId(12).toLowerCase()}`;
const adminKey = 'replica-admin-' + randomId(16);

beforeAll(async () => {
  [a, b] = await Promise.all([startFakeOpenAI(), startFakeOpenAI()]);
  // Create the schema once so the two processes do not race on the first migration.
  await (await openStore({ kind: 'postgres', url: PG_URL, schema })).close();
  const env = {
    DATABASE_URL: PG_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL,
    REDIS_PREFIX: `gwtest:${randomId(8)}:`,
    GATEWAY_ADMIN_KEY: adminKey,
  };
  one = await spawnGateway(env);
  two = await spawnGateway(env);
}, 60_000);
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await Promise.all([a?.close(), b?.close()]);
  await dropPostgresSchema(PG_URL, schema);
});

async function chat(gw: GatewayProcess, config: unknown) {
  const res = await fetch(gw.url + '/v1/chat/completions', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': adminKey,
      'x-gateway-config': typeof config === 'string' ? config : JSON.stringify(config),
    },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
  });
  return { status: res.status, path: res.headers.get('x-gateway-last-used-option-index'), body: (await res.json()) as any };
}

describe('two gateway processes sharing PostgreSQL and Redis', () => {
  it('a circuit opened by one replica is seen open by the other', async () => {
    const config = {
      cb_config: { failure_threshold: 2, cooldown_interval: 60000 },
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'k', custom_host: a.url },
        { provider: 'openai', api_key: 'k', custom_host: b.url },
      ],
    };
    a.fail({ status: 500 }, { status: 500 });
    expect((await chat(one, config)).path).toBe('config.targets[1]');
    expect((await chat(one, config)).path).toBe('config.targets[1]');
    expect(a.requests).toHaveLength(2);
    const seen = await chat(two, config);
    expect(seen.status).toBe(200);
    expect(seen.path).toBe('config.targets[1]');
    expect(a.requests).toHaveLength(2);
  });

  it('a config stored through one replica is usable on the other within one second, and its updates too', async () => {
    const created = await fetch(one.url + '/v1/configs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': adminKey },
      body: JSON.stringify({ name: 'shared', slug: 'shared-cfg', config: { provider: 'openai', api_key: 'k', custom_host: a.url } }),
    });
    expect(created.status).toBe(201);
    const t0 = Date.now();
    let r = await chat(two, 'shared-cfg');
    while (r.status !== 200 && Date.now() - t0 < 1000) r = await chat(two, 'shared-cfg');
    expect(r.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1000);
    await fetch(one.url + '/v1/configs/shared-cfg', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': adminKey },
      body: JSON.stringify({ config: { provider: 'openai', api_key: 'k', custom_host: b.url } }),
    });
    const before = b.requests.length;
    const t1 = Date.now();
    while (b.requests.length === before && Date.now() - t1 < 1000) await chat(two, 'shared-cfg');
    expect(b.requests.length).toBeGreaterThan(before);
  });
});
