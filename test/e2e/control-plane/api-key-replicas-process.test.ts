import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { dropPostgresSchema, openStore, recordRuntimeChange, type Store } from '../../../src/infra/store/store.js';
import { API_KEYS_SECTION } from '../../../src/runtime/core-sections.js';
import { PG_URL, REDIS_URL } from '../../helpers/gateway.js';
import { ensureBuilt, spawnGateway, type GatewayProcess } from '../../helpers/processes.js';

type Json = Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Key lifecycle across two gateway PROCESSES sharing one PostgreSQL schema and one Redis prefix:
 * a revocation through one is refused by the other within a second; a scheduled rotation happens
 * exactly once although both schedulers race for it; a rotated key's old value stops working on both
 * when its transition ends.
 */
describe('API key lifecycle on two gateway processes', () => {
  const schema = `t_${randomId(12).toLowerCase()}`;
  const adminKey = 'proc-admin-' + randomId(20);
  let a: GatewayProcess;
  let b: GatewayProcess;
  let store: Store;

  beforeAll(async () => {
    ensureBuilt();
    const env = {
      DATABASE_URL: PG_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL,
      REDIS_PREFIX: `gwtest:${randomId(8)}:`,
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_REQUEST_LOG: 'false',
      GATEWAY_SCHEDULER_INTERVAL_MS: '100',
    };
    // One after the other: the first migrates and bootstraps the empty schema.
    a = await spawnGateway(env);
    b = await spawnGateway(env);
    store = await openStore({ kind: 'postgres', url: PG_URL, schema });
  }, 180_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await store?.close();
    await dropPostgresSchema(PG_URL, schema);
  });

  const call = async (gw: GatewayProcess, method: string, path: string, body?: Json, key = adminKey) => {
    const headers: Record<string, string> = { 'x-gateway-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) };
    const res = await fetch(gw.url + path, { method, headers, body: body && JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const works = async (gw: GatewayProcess, value: string) => (await call(gw, 'GET', '/v1/configs', undefined, value)).status === 200;
  /** Polls `check` every 20 ms; returns the milliseconds until it held. */
  const timeUntil = async (check: () => Promise<boolean>, limitMs: number) => {
    const start = performance.now();
    while (!(await check())) {
      if (performance.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`);
      await sleep(20);
    }
    return performance.now() - start;
  };

  it('a key revoked through replica A is refused by replica B within one second', async () => {
    for (let i = 0; i < 3; i++) {
      const created = await call(a, 'POST', '/v1/api-keys', { name: `revoke-${i}` });
      expect(created.status).toBe(201);
      await timeUntil(() => works(b, created.body.key), 5_000);
      expect((await call(a, 'DELETE', `/v1/api-keys/${created.body.id}`)).status).toBe(200);
      expect(await timeUntil(async () => !(await works(b, created.body.key)), 1_000)).toBeLessThan(1_000);
      expect(await works(a, created.body.key)).toBe(false);
    }
  });

  it('due keys are rotated exactly once although both schedulers race; the old values stop on both when the transition ends', async () => {
    const due = new Date(Date.now() + 1_500).toISOString();
    const keys: Json[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await call(i % 2 ? a : b, 'POST', '/v1/api-keys', {
        name: `scheduled-${i}`,
        rotation_policy: { rotation_period: 'monthly', next_rotation_at: due },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      keys.push(created.body);
    }
    const rotated = async () => {
      const rows = await store.db
        .selectFrom('api_keys')
        .select(['id', 'key_transition_expires_at'])
        .where(
          'id',
          'in',
          keys.map((k) => k.id),
        )
        .execute();
      return rows.every((r) => r.key_transition_expires_at !== null);
    };
    await timeUntil(rotated, 10_000);
    // Both schedulers keep running: give them several more turns to rotate a key twice, if they could.
    await sleep(600);
    const audit = await store.db
      .selectFrom('audit_logs')
      .select(['resource_id', 'actor_type', 'details'])
      .where('action', '=', 'api_key.rotate')
      .execute();
    for (const k of keys) {
      const entries = audit.filter((e) => e.resource_id === k.id);
      expect(entries, k.name).toHaveLength(1);
      expect(entries[0]!.actor_type).toBe('system');
      expect(JSON.parse(entries[0]!.details)).toMatchObject({ rotation_mode: 'scheduled' });
    }
    const rows = await store.db
      .selectFrom('api_keys')
      .select(['id', 'key_hash', 'previous_key_hash', 'next_rotation_at'])
      .where(
        'id',
        'in',
        keys.map((k) => k.id),
      )
      .execute();
    expect(new Set(rows.map((r) => r.key_hash)).size).toBe(keys.length);
    for (const r of rows) expect(Number(r.next_rotation_at)).toBeGreaterThan(Date.now());

    // Each new value is shown once (whichever replica is asked) and works on both; so do the old ones, for now.
    const fresh: string[] = [];
    for (const [i, k] of keys.entries()) {
      const revealed = await call(i % 2 ? b : a, 'POST', `/v1/api-keys/${k.id}/reveal`, {});
      expect(revealed.status, JSON.stringify(revealed.body)).toBe(200);
      expect((await call(i % 2 ? a : b, 'POST', `/v1/api-keys/${k.id}/reveal`, {})).status).toBe(409);
      fresh.push(revealed.body.key);
    }
    await timeUntil(async () => (await Promise.all(fresh.map((v) => works(b, v)))).every(Boolean), 2_000);
    for (const gw of [a, b]) for (const k of keys) expect(await works(gw, k.key)).toBe(true);

    // The transition is at least 30 minutes; end it early in the store (and let both replicas reload
    // once), then let the end pass: both refuse the old values from then on, with no further change.
    const ends = Date.now() + 2_000;
    await store.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('api_keys')
        .set({ key_transition_expires_at: ends })
        .where(
          'id',
          'in',
          keys.map((k) => k.id),
        )
        .execute();
      await recordRuntimeChange(trx, [{ section: API_KEYS_SECTION }]);
    });
    await sleep(1_200);
    for (const gw of [a, b]) expect(await works(gw, keys[0]!.key)).toBe(true);
    await sleep(Math.max(0, ends - Date.now()) + 50);
    for (const gw of [a, b]) {
      for (const [i, k] of keys.entries()) {
        expect(await works(gw, k.key)).toBe(false);
        expect(await works(gw, fresh[i]!)).toBe(true);
      }
    }
  });
});
