import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant, insertTenant } from '../repos/organisations.js';
import { insertApiKey, isInstanceOperatorKey, type ApiKeyRecord } from '../repos/api-keys.js';
import { down, up } from './0033-operator-key.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

const key = (
  id: string,
  organisationId: string,
  workspaceId: string | null,
  createdAt: number,
  type: ApiKeyRecord['type'] = 'organisation-service',
): ApiKeyRecord => ({
  id,
  organisation_id: organisationId,
  workspace_id: workspaceId,
  name: id,
  type,
  key_hash: `hash-${id}`,
  key_hint: 'hint',
  scopes: ['*'],
  status: 'active',
  expires_at: null,
  rotation_policy: null,
  metadata: {},
  created_at: createdAt,
  updated_at: createdAt,
});

describe.each(STORE_KINDS)('0033-operator-key ($name)', (kind) => {
  it("marks an existing store's bootstrap key (its first key, an organisation key of `default`) and no other", async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const tenant = await ensureDefaultTenant(handle.store, 1);
    const other = await insertTenant(db, { name: 'Other', slug: 'other' }, 2);
    await down(db as unknown as Kysely<unknown>);
    const orgWide = (o: string, w: string) => ({ organisationId: o, workspaceIds: [w], organisationWide: true });
    await insertApiKey(db, orgWide(tenant.organisation.id, tenant.workspace.id), key('bootstrap', tenant.organisation.id, null, 10));
    await insertApiKey(db, orgWide(tenant.organisation.id, tenant.workspace.id), key('later-admin', tenant.organisation.id, null, 20));
    await insertApiKey(db, orgWide(other.organisation.id, other.workspace.id), key('other-admin', other.organisation.id, null, 30));
    await up(db as unknown as Kysely<unknown>);
    const marked = await db.selectFrom('api_keys').select(['id', 'instance_operator']).orderBy('id').execute();
    expect(marked.map((r) => [r.id, Number(r.instance_operator)])).toEqual([
      ['bootstrap', 1],
      ['later-admin', 0],
      ['other-admin', 0],
    ]);
    expect(await isInstanceOperatorKey(db, 'bootstrap', tenant.organisation.id)).toBe(true);
    expect(await isInstanceOperatorKey(db, 'bootstrap', other.organisation.id)).toBe(false);
    expect(await isInstanceOperatorKey(db, 'later-admin', tenant.organisation.id)).toBe(false);
  });

  it('marks nothing when the first key is not an organisation key of `default`', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const tenant = await ensureDefaultTenant(handle.store, 1);
    await down(db as unknown as Kysely<unknown>);
    await insertApiKey(
      db,
      { organisationId: tenant.organisation.id, workspaceIds: [tenant.workspace.id], organisationWide: false },
      key('ws-key', tenant.organisation.id, tenant.workspace.id, 10, 'workspace-service'),
    );
    await insertApiKey(
      db,
      { organisationId: tenant.organisation.id, workspaceIds: [tenant.workspace.id], organisationWide: true },
      key('later-admin', tenant.organisation.id, null, 20),
    );
    await up(db as unknown as Kysely<unknown>);
    const marked = await db.selectFrom('api_keys').select('id').where('instance_operator', '=', 1).execute();
    expect(marked).toEqual([]);
  });
});
