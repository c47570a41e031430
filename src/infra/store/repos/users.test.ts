import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { ensureDefaultTenant } from './organisations.js';
import { deleteUser, getMember, getUser, insertMember, insertUser, listMembers, listUsers, userRoleIn, usersOfKeys } from './users.js';
import { isUniqueViolation } from '../store.js';

describe.each(STORE_KINDS)('users repository on $name', (kind) => {
  let h: StoreHandle;
  let orgId: string;
  let ws1: string;
  let ws2: string;
  const now = Date.UTC(2026, 0, 1);
  const user = (email: string, role: 'owner' | 'admin' | 'member' = 'member') => ({
    id: uuid(),
    organisation_id: orgId,
    email,
    name: null,
    role,
    status: 'active' as const,
    created_at: now,
    updated_at: now,
  });

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

  it('keeps emails unique per organisation regardless of case, and finds them regardless of case', async () => {
    await insertUser(h.store.db, user('Case@Example.com'));
    const clash = await insertUser(h.store.db, user('case@example.COM')).catch((e: unknown) => e);
    expect(isUniqueViolation(clash)).toBe(true);
    const found = await listUsers(
      h.store.db,
      { organisationId: orgId, workspaceIds: [ws1, ws2], organisationWide: true },
      { email: 'CASE@example.com' },
      { limit: 10, offset: 0 },
    );
    expect(found.rows.map((u) => u.email)).toEqual(['Case@Example.com']);
  });

  it('a workspace scope sees only members of its workspaces, with only those memberships', async () => {
    const u = user('member@example.com');
    await insertUser(h.store.db, u);
    await insertMember(h.store.db, { workspace_id: ws2, user_id: u.id, role: 'manager', created_at: now });
    expect(await getUser(h.store.db, { organisationId: orgId, workspaceIds: [ws1], organisationWide: false }, u.id)).toBeUndefined();
    const seen = await getUser(h.store.db, { organisationId: orgId, workspaceIds: [ws2], organisationWide: false }, u.id);
    expect(seen?.workspaces).toEqual([{ id: ws2, role: 'manager' }]);
    expect(await getUser(h.store.db, { organisationId: uuid(), workspaceIds: [ws2], organisationWide: true }, u.id)).toBeUndefined();
    const members = await listMembers(h.store.db, { organisationId: orgId, workspaceIds: [ws2], organisationWide: false }, ws2, {
      limit: 10,
      offset: 0,
    });
    expect(members.rows.map((m) => [m.user_id, m.role, m.email])).toEqual([[u.id, 'manager', 'member@example.com']]);
    expect(await getMember(h.store.db, { organisationId: orgId, workspaceIds: [ws1], organisationWide: false }, ws2, u.id)).toBeUndefined();
  });

  it('answers the role lookup and the per-page key facts; deleting revokes the keys', async () => {
    const u = user('keys@example.com', 'member');
    await insertUser(h.store.db, u);
    await insertMember(h.store.db, { workspace_id: ws1, user_id: u.id, role: 'admin', created_at: now });
    expect(await userRoleIn(h.store.db, u.id, ws1)).toEqual({ organisationRole: 'member', status: 'active', membershipRole: 'admin' });
    expect(await userRoleIn(h.store.db, u.id, ws2)).toEqual({ organisationRole: 'member', status: 'active', membershipRole: null });
    expect(await userRoleIn(h.store.db, uuid(), ws1)).toBeUndefined();
    const facts = await usersOfKeys(h.store.db, [
      { user_id: u.id, workspace_id: ws1 },
      { user_id: null, workspace_id: ws1 },
    ]);
    expect([...facts.users.keys()]).toEqual([u.id]);
    expect(facts.memberships.get(`${ws1}:${u.id}`)).toBe('admin');
    const keyId = uuid();
    await h.store.db
      .insertInto('api_keys')
      .values({
        id: keyId,
        organisation_id: orgId,
        workspace_id: ws1,
        user_id: u.id,
        name: 'k',
        type: 'workspace-user',
        key_hash: uuid(),
        key_hint: 'k',
        scopes: '[]',
        status: 'active',
        expires_at: null,
        rotation_policy: null,
        metadata: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await deleteUser(h.store.db, orgId, u.id, now);
    expect((await h.store.db.selectFrom('api_keys').select('status').where('id', '=', keyId).executeTakeFirst())?.status).toBe('revoked');
    expect(await userRoleIn(h.store.db, u.id, ws1)).toBeUndefined();
    expect(await h.store.db.selectFrom('workspace_members').selectAll().where('user_id', '=', u.id).execute()).toEqual([]);
  });
});
