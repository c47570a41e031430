import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Runtime } from '../../src/runtime/runtime.js';
import { CONFIGS_SECTION } from '../../src/runtime/core-sections.js';
import { MemoryPubSub, RedisPubSub, type PubSub } from '../../src/infra/state/pubsub.js';
import { createLogger } from '../../src/infra/observability/logger.js';
import { ensureDefaultTenant } from '../../src/infra/store/repos/organisations.js';
import { insertConfig } from '../../src/infra/store/repos/configs.js';
import { dropPostgresSchema, openStore, recordRuntimeChange, type Store } from '../../src/infra/store/store.js';
import { randomId, uuid } from '../../src/foundation/lib/ids.js';
import { PG_URL, REDIS_URL } from '../helpers/gateway.js';

const logger = createLogger('silent');

/** Waits until `check` holds, polling every 5 ms; returns the milliseconds it took. */
async function timeUntil(check: () => boolean, limitMs: number): Promise<number> {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - start;
}

describe('replicas sharing one PostgreSQL', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** Two runtimes, each with its own store handle on one schema and its own pub/sub. */
  async function twoReplicas(pubsubs: () => PubSub, pollMs: { writer: number; reader: number }) {
    const schema = `t_${randomId(12).toLowerCase()}`;
    const stores: Store[] = [];
    for (let i = 0; i < 2; i++) stores.push(await openStore({ kind: 'postgres', url: PG_URL, schema }));
    cleanup.push(async () => {
      for (const s of stores) await s.close();
      await dropPostgresSchema(PG_URL, schema);
    });
    const t = await ensureDefaultTenant(stores[0], 1);
    const tenant = { organisationId: t.organisation.id, workspaceId: t.workspace.id };
    const [writer, reader] = [0, 1].map((i) => new Runtime(stores[i], pubsubs(), logger, tenant, i === 0 ? pollMs.writer : pollMs.reader));
    for (const r of [writer, reader]) {
      await r.start();
      cleanup.push(() => r.stop());
    }
    const write = async () => {
      const id = uuid();
      await stores[0].db.transaction().execute(async (trx) => {
        await trx
          .insertInto('configs')
          .values({
            id,
            organisation_id: tenant.organisationId,
            workspace_id: tenant.workspaceId,
            name: 'c',
            slug: `c-${id}`,
            status: 'active',
            version: 1,
            created_at: 1,
            updated_at: 1,
          })
          .execute();
        await trx
          .insertInto('config_versions')
          .values({ config_id: id, version: 1, config: JSON.stringify({ provider: 'openai', api_key: 'sk' }), created_at: 1 })
          .execute();
        await recordRuntimeChange(trx, [{ section: CONFIGS_SECTION, workspaceId: tenant.workspaceId }]);
      });
      await writer.committed([{ section: CONFIGS_SECTION, workspaceId: tenant.workspaceId }]);
      return `${tenant.workspaceId}:${id}`;
    };
    return { writer, reader, write, stores, tenant };
  }

  it('without Redis, the version poll carries a write to the other replica within one second', async () => {
    const { writer, reader, write } = await twoReplicas(() => new MemoryPubSub(), { writer: 60_000, reader: 500 });
    for (let i = 0; i < 3; i++) {
      const key = await write();
      expect(writer.current.configs.has(key)).toBe(true);
      expect(await timeUntil(() => reader.current.configs.has(key), 1000)).toBeLessThan(1000);
    }
    expect(reader.current.version).toBe(writer.current.version);
  });

  it('with Redis, pub/sub carries a write to the other replica at once (no poll)', async () => {
    const prefix = `gw-test-${randomId(8)}:`;
    const connections: Redis[] = [];
    cleanup.push(() => {
      for (const c of connections) c.disconnect();
    });
    const pubsubs = () => {
      const redis = new Redis(REDIS_URL);
      connections.push(redis);
      const ps = new RedisPubSub(redis, prefix);
      cleanup.push(() => ps.close());
      return ps;
    };
    const { reader, write } = await twoReplicas(pubsubs, { writer: 60_000, reader: 60_000 });
    for (let i = 0; i < 3; i++) {
      const key = await write();
      expect(await timeUntil(() => reader.current.configs.has(key), 1000)).toBeLessThan(1000);
    }
  });

  it('a write reported with changed() and no list (a full reload) reaches the other replica too', async () => {
    const { writer, reader, stores, tenant } = await twoReplicas(() => new MemoryPubSub(), { writer: 60_000, reader: 200 });
    const id = uuid();
    await insertConfig(
      stores[0].db,
      { organisationId: tenant.organisationId, workspaceIds: [tenant.workspaceId], organisationWide: false },
      {
        id,
        organisation_id: tenant.organisationId,
        workspace_id: tenant.workspaceId,
        name: 'p',
        slug: 'plain',
        status: 'active',
        version: 1,
        config: { provider: 'openai', api_key: 'sk' },
        created_at: 1,
        updated_at: 1,
      },
    );
    await writer.changed();
    await timeUntil(() => reader.current.configs.has(`${tenant.workspaceId}:plain`), 1000);
    expect(reader.current.version).toBe(writer.current.version);
  });
});
