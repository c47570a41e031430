import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { ensureDefaultTenant } from './organisations.js';
import { deleteUser, insertUser } from './users.js';
import { deleteEndedSessions, insertSession, listLiveSessionsPage, revokeSession, revokeUserSessions } from './sessions.js';
import { pruneSessionsJob } from '../../../control-plane/identity/prune-sessions.js';
import { sessionsSection } from '../../../runtime/sessions-section.js';
import { isUniqueViolation } from '../store.js';

describe.each(STORE_KINDS)('sessions repository and section on $name', (kind) => {
  let h: StoreHandle;
  let orgId: string;
  const now = Date.UTC(2026, 0, 1);
  const newUser = async () => {
    const u = {
      id: uuid(),
      organisation_id: orgId,
      email: `${uuid()}@example.com`,
      name: null,
      role: 'member' as const,
      status: 'active' as const,
      created_at: now,
      updated_at: now,
    };
    await insertUser(h.store.db, u);
    return u.id;
  };
  const session = (userId: string, at = now, ttl = 3_600_000) => ({
    id: uuid(),
    token_hash: uuid(),
    user_id: userId,
    organisation_id: orgId,
    created_at: at,
    expires_at: at + ttl,
    revoked_at: null,
  });

  beforeAll(async () => {
    h = await kind.open();
    orgId = (await ensureDefaultTenant(h.store, now)).organisation.id;
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('the scheduled prune deletes every user’s ended sessions (expired or revoked), in batches, and keeps the live ones', async () => {
    const [a, b] = [await newUser(), await newUser()];
    const ended = [session(a, now - 7_200_000), session(b, now - 7_200_000), session(b, now - 3_600_000)];
    const revoked = session(a);
    const live = [session(a), session(b, now - 3_599_000)];
    for (const s of [...ended, revoked, ...live]) await h.store.db.insertInto('sessions').values(s).execute();
    expect(await revokeSession(h.store.db, orgId, revoked.id, now)).toBe(true);
    const mine = () =>
      h.store.db
        .selectFrom('sessions')
        .select('id')
        .where('user_id', 'in', [a, b])
        .execute()
        .then((rows) => rows.map((r) => r.id).sort());
    expect(await deleteEndedSessions(h.store.db, now, 1)).toBe(1);
    expect(await mine()).toHaveLength(5);
    await pruneSessionsJob(h.store.db, () => now, 60_000).run();
    expect(await mine()).toEqual(live.map((s) => s.id).sort());
    expect(await deleteEndedSessions(h.store.db, now, 1000)).toBe(0);
  });

  it('a login removes the user’s ended sessions (expired or revoked) and keeps the live ones; token hashes are unique', async () => {
    const u = await newUser();
    const expired = session(u, now - 7_200_000);
    const revoked = session(u);
    const live = session(u);
    for (const s of [expired, revoked, live]) await h.store.db.insertInto('sessions').values(s).execute();
    expect(await revokeSession(h.store.db, orgId, revoked.id, now)).toBe(true);
    const fresh = session(u);
    await insertSession(h.store.db, fresh);
    const ids = (await h.store.db.selectFrom('sessions').select('id').where('user_id', '=', u).execute()).map((r) => r.id).sort();
    expect(ids).toEqual([live.id, fresh.id].sort());
    const clash = await insertSession(h.store.db, { ...session(u), token_hash: fresh.token_hash }).catch((e: unknown) => e);
    expect(isUniqueViolation(clash)).toBe(true);
  });

  it('revokes once, only in its organisation; revoking a user’s sessions and deleting the user revoke them all', async () => {
    const u = await newUser();
    const a = session(u);
    const b = session(u);
    await insertSession(h.store.db, a);
    await insertSession(h.store.db, b);
    expect(await revokeSession(h.store.db, uuid(), a.id, now)).toBe(false);
    expect(await revokeSession(h.store.db, orgId, a.id, now)).toBe(true);
    expect(await revokeSession(h.store.db, orgId, a.id, now)).toBe(false);
    expect(await revokeUserSessions(h.store.db, orgId, u, now)).toBe(1);
    const v = await newUser();
    const c = session(v);
    await insertSession(h.store.db, c);
    await deleteUser(h.store.db, orgId, v, now + 1);
    const row = await h.store.db.selectFrom('sessions').select('revoked_at').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(Number(row.revoked_at)).toBe(now + 1);
  });

  it('pages live sessions by id; the section holds those of active users with their memberships and the organisation’s lifetime', async () => {
    const u = await newUser();
    const w = await newUser();
    const mine = [session(u), session(u, now, 999_999_999), session(w)];
    for (const s of mine) await h.store.db.insertInto('sessions').values(s).execute();
    await h.store.db.updateTable('users').set({ status: 'deactivated' }).where('id', '=', w).execute();
    const ws = (await ensureDefaultTenant(h.store, now)).workspace.id;
    await h.store.db.insertInto('workspace_members').values({ workspace_id: ws, user_id: u, role: 'manager', created_at: now }).execute();
    await h.store.db
      .updateTable('organisations')
      .set({ settings: JSON.stringify({ session_settings: { max_session_ttl: 900 } }) })
      .where('id', '=', orgId)
      .execute();

    const seen: string[] = [];
    let afterId: string | undefined;
    for (;;) {
      const page = await listLiveSessionsPage(h.store, { afterId, limit: 2 });
      seen.push(...page.map((r) => r.id));
      if (page.length < 2) break;
      afterId = page[page.length - 1]!.id;
    }
    expect([...seen].sort()).toEqual(seen);
    for (const s of mine) expect(seen).toContain(s.id);

    const section = await sessionsSection.load(h.store);
    expect(section.get(mine[2]!.token_hash)).toBeUndefined();
    const live = section.get(mine[1]!.token_hash)!;
    expect(live).toMatchObject({ id: mine[1]!.id, userId: u, organisationId: orgId, createdAt: now, expiresAt: now + 900_000 });
    expect([...live.memberships]).toEqual([[ws, 'manager']]);
    expect(section.get(mine[0]!.token_hash)!.expiresAt).toBe(now + 900_000);
  });
});
