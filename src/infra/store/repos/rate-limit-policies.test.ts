import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { ensureDefaultTenant } from './organisations.js';

const scopeOf = (organisationId: string, ...workspaceIds: string[]) => ({ organisationId, workspaceIds, organisationWide: false });
import {
  getRateLimitPolicy,
  insertRateLimitPolicy,
  listActiveRateLimitPolicies,
  listRateLimitPolicies,
  updateRateLimitPolicy,
  type RateLimitPolicy,
} from './rate-limit-policies.js';

describe.each(STORE_KINDS)('rate-limit policies repository on $name', (kind) => {
  let h: StoreHandle;
  let orgId: string;
  let ws1: string;
  let ws2: string;
  const now = Date.UTC(2026, 0, 1);

  function policy(over: Partial<RateLimitPolicy>): RateLimitPolicy {
    return {
      id: uuid(),
      organisation_id: orgId,
      workspace_id: ws1,
      name: null,
      type: 'requests',
      unit: 'rpm',
      value: 10,
      conditions: [],
      group_by: [],
      status: 'active',
      created_at: now,
      updated_at: now,
      ...over,
    };
  }

  beforeAll(async () => {
    h = await kind.open();
    const t = await ensureDefaultTenant(h.store, now);
    orgId = t.organisation.id;
    ws1 = t.workspace.id;
    ws2 = uuid();
    await h.store.db
      .insertInto('workspaces')
      .values({
        id: ws2,
        organisation_id: orgId,
        name: 'Second',
        slug: 'second',
        status: 'active',
        settings: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('round-trips every field, JSON members and large values included', async () => {
    const p = policy({
      name: 'chat per user',
      type: 'tokens',
      unit: 'rpw',
      value: 5_000_000_000,
      conditions: [
        { key: 'endpoint_type', value: 'chat' },
        { key: 'metadata._user', value: 'ann' },
      ],
      group_by: [{ key: 'api_key' }, { key: 'metadata._user' }],
    });
    await insertRateLimitPolicy(h.store.db, scopeOf(orgId, ws1, ws2), p);
    expect(await getRateLimitPolicy(h.store.db, scopeOf(orgId, ws1, ws2), p.id)).toEqual(p);
    expect(await getRateLimitPolicy(h.store.db, scopeOf(orgId, ws2), p.id)).toBeUndefined();
    expect(await getRateLimitPolicy(h.store.db, scopeOf(orgId), p.id)).toBeUndefined();
    expect(await getRateLimitPolicy(h.store.db, scopeOf(orgId, ws1, ws2), uuid())).toBeUndefined();
  });

  it('updates only the given fields and archives', async () => {
    const p = policy({ name: 'before' });
    await insertRateLimitPolicy(h.store.db, scopeOf(orgId, ws1, ws2), p);
    expect(
      await updateRateLimitPolicy(
        h.store.db,
        scopeOf(orgId, ws1, ws2),
        p.id,
        { value: 99, conditions: [{ key: 'model', value: 'gpt-4o' }] },
        now + 5,
      ),
    ).toBe(true);
    const got = await getRateLimitPolicy(h.store.db, scopeOf(orgId, ws1, ws2), p.id);
    expect(got).toEqual({ ...p, value: 99, conditions: [{ key: 'model', value: 'gpt-4o' }], updated_at: now + 5 });
    await updateRateLimitPolicy(h.store.db, scopeOf(orgId, ws1, ws2), p.id, { status: 'archived', name: null }, now + 6);
    expect(await getRateLimitPolicy(h.store.db, scopeOf(orgId, ws1, ws2), p.id)).toMatchObject({
      status: 'archived',
      name: null,
      value: 99,
    });
    expect((await listActiveRateLimitPolicies(h.store)).some((x) => x.id === p.id)).toBe(false);
    expect(await updateRateLimitPolicy(h.store.db, scopeOf(orgId, ws1, ws2), uuid(), { value: 1 }, now)).toBe(false);
  });

  it('lists with workspace, status, type and unit filters, paged newest first with the total', async () => {
    const fresh = await kind.open();
    try {
      const t = await ensureDefaultTenant(fresh.store, now);
      const org = t.organisation.id;
      const wsA = t.workspace.id;
      const wsB = uuid();
      await fresh.store.db
        .insertInto('workspaces')
        .values({ id: wsB, organisation_id: org, name: 'B', slug: 'b', status: 'active', settings: '{}', created_at: now, updated_at: now })
        .execute();
      const rows = [
        policy({ organisation_id: org, workspace_id: wsA, type: 'requests', unit: 'rpm', created_at: now + 1 }),
        policy({ organisation_id: org, workspace_id: wsA, type: 'tokens', unit: 'rpm', created_at: now + 2 }),
        policy({ organisation_id: org, workspace_id: wsA, type: 'tokens', unit: 'rpd', created_at: now + 3 }),
        policy({ organisation_id: org, workspace_id: wsB, type: 'requests', unit: 'rph', created_at: now + 4 }),
        policy({ organisation_id: org, workspace_id: wsA, type: 'requests', unit: 'rpw', status: 'archived', created_at: now + 5 }),
      ];
      for (const r of rows) await insertRateLimitPolicy(fresh.store.db, scopeOf(org, wsA, wsB), r);
      const page = { limit: 50, offset: 0 };
      const ids = async (f: Partial<Parameters<typeof listRateLimitPolicies>[2]> & { workspaceIds?: string[] }) => {
        const { workspaceIds = [wsA, wsB], ...rest } = f;
        const res = await listRateLimitPolicies(fresh.store.db, scopeOf(org, ...workspaceIds), { status: 'active', ...page, ...rest });
        return { ids: res.rows.map((r) => r.id), total: res.total };
      };
      expect(await ids({})).toEqual({ ids: [rows[3]!.id, rows[2]!.id, rows[1]!.id, rows[0]!.id], total: 4 });
      expect(await ids({ workspaceIds: [wsB] })).toEqual({ ids: [rows[3]!.id], total: 1 });
      expect(await ids({ status: 'archived' })).toEqual({ ids: [rows[4]!.id], total: 1 });
      expect(await ids({ type: 'tokens' })).toEqual({ ids: [rows[2]!.id, rows[1]!.id], total: 2 });
      expect(await ids({ unit: 'rpm' })).toEqual({ ids: [rows[1]!.id, rows[0]!.id], total: 2 });
      expect(await ids({ type: 'requests', unit: 'rpm' })).toEqual({ ids: [rows[0]!.id], total: 1 });
      expect(await ids({ limit: 2, offset: 2 })).toEqual({ ids: [rows[1]!.id, rows[0]!.id], total: 4 });
      expect(await ids({ limit: 2, offset: 4 })).toEqual({ ids: [], total: 4 });
      expect(await ids({ workspaceIds: [] })).toEqual({ ids: [], total: 0 });
      expect((await listActiveRateLimitPolicies(fresh.store)).map((r) => r.id).sort()).toEqual(
        rows
          .slice(0, 4)
          .map((r) => r.id)
          .sort(),
      );
    } finally {
      await fresh.dispose();
    }
  });
});
