import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../test/helpers/stores.js';
import { isUniqueViolation } from '../../infra/store/store.js';
import {
  deleteGuardrail,
  getGuardrail,
  insertGuardrail,
  listAllGuardrails,
  listGuardrails,
  updateGuardrail,
  type StoredGuardrail,
} from './guardrails-repo.js';
import { guardrailsSection, storedLookup } from './guardrails-section.js';
import type { RuntimeSnapshot } from '../../runtime/snapshot.js';

const row = (id: string, workspace: string, at: number): StoredGuardrail => ({
  id,
  organisation_id: 'org',
  workspace_id: workspace,
  name: `n-${id}`,
  slug: `s-${id}`,
  created_at: at,
  updated_at: at,
  checks: [{ id: 'default.contains', parameters: { words: ['x'] } }],
  actions: { deny: true, on_fail: { feedback: { value: -1 } } },
});

const scope = (...workspaceIds: string[]) => ({ organisationId: 'org', workspaceIds, organisationWide: false });
const all = scope('w1', 'w2');

describe.each(STORE_KINDS)('guardrails repository on $name', (kind) => {
  let h: StoreHandle;
  beforeAll(async () => {
    h = await kind.open();
    await h.store.db.insertInto('organisations').values({ id: 'org', name: 'o', slug: 'o', settings: '{}', created_at: 0 }).execute();
    for (const [i, ws] of ['w1', 'w2'].entries()) {
      await h.store.db
        .insertInto('workspaces')
        .values({ id: ws, organisation_id: 'org', name: ws, slug: ws, status: 'active', settings: '{}', created_at: i, updated_at: i })
        .execute();
    }
    for (let i = 0; i < 4; i++) await insertGuardrail(h.store.db, all, row(`g${i}`, 'w1', 1000 + i));
    await insertGuardrail(h.store.db, all, row('other', 'w2', 5000));
  });
  afterAll(async () => h?.dispose());

  it('round-trips JSON columns and times', async () => {
    expect(await getGuardrail(h.store.db, all, 'g1')).toEqual(row('g1', 'w1', 1001));
    expect((await getGuardrail(h.store.db, scope('w1'), 's-g1'))?.id).toBe('g1');
    expect(await getGuardrail(h.store.db, scope('w2'), 'g1')).toBeUndefined();
  });

  it('pages newest first with the total, and filters by ids or slugs', async () => {
    const p0 = await listGuardrails(h.store.db, scope('w1'), { limit: 3, offset: 0 });
    expect(p0.total).toBe(4);
    expect(p0.rows.map((r) => r.id)).toEqual(['g3', 'g2', 'g1']);
    const p1 = await listGuardrails(h.store.db, scope('w1'), { limit: 3, offset: 3 });
    expect(p1.rows.map((r) => r.id)).toEqual(['g0']);
    const byIds = await listGuardrails(h.store.db, scope('w1'), { ids: ['g0', 's-g2', 'other'], limit: 50, offset: 0 });
    expect(byIds).toMatchObject({ total: 2 });
    expect(byIds.rows.map((r) => r.id)).toEqual(['g2', 'g0']);
    expect((await listGuardrails(h.store.db, scope('w1'), { ids: [], limit: 50, offset: 0 })).total).toBe(0);
  });

  it('enforces a unique slug per workspace, not across workspaces', async () => {
    const dup = await insertGuardrail(h.store.db, all, { ...row('dup', 'w1', 1), slug: 's-g0' }).catch((e) => e);
    expect(isUniqueViolation(dup)).toBe(true);
    await insertGuardrail(h.store.db, all, { ...row('dup2', 'w2', 1), slug: 's-g0' });
  });

  it('never reads or writes outside the tenant scope', async () => {
    await updateGuardrail(h.store.db, scope('w2'), 'g1', { name: 'hijacked' }, 1);
    await deleteGuardrail(h.store.db, scope('w2'), 'g1');
    expect(await getGuardrail(h.store.db, all, 'g1')).toMatchObject({ name: 'n-g1' });
    expect(await getGuardrail(h.store.db, { ...all, organisationId: 'other-org' }, 'g1')).toBeUndefined();
    await expect(insertGuardrail(h.store.db, scope('w2'), row('x', 'w1', 1))).rejects.toThrow(/outside the tenant scope/);
  });

  it('updates and deletes', async () => {
    await updateGuardrail(h.store.db, all, 'g0', { name: 'renamed', actions: {} }, 9999);
    expect(await getGuardrail(h.store.db, all, 'g0')).toMatchObject({
      name: 'renamed',
      actions: {},
      updated_at: 9999,
      checks: row('g0', 'w1', 0).checks,
    });
    await deleteGuardrail(h.store.db, all, 'g0');
    expect(await getGuardrail(h.store.db, all, 'g0')).toBeUndefined();
  });

  it('loads the runtime section keyed by workspace and id or slug', async () => {
    const index = await guardrailsSection().load(h.store);
    expect(index.size).toBe((await listAllGuardrails(h.store)).length * 2);
    const snapshot = { sections: new Map([['guardrails', index]]) } as unknown as RuntimeSnapshot;
    expect(storedLookup(snapshot, 'w1')('s-g1')?.id).toBe('g1');
    expect(storedLookup(snapshot, 'w2')('g1')).toBeUndefined();
  });
});
