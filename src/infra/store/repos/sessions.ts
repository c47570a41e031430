import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database, SessionsTable } from '../schema.js';
import type { RuntimePage, Store } from '../store.js';

/** A console session row (the token's hash, never the token). */
export type SessionRecord = SessionsTable;

/** A session that has ended by `at`: expired, or revoked. */
function endedBy(at: number) {
  return (eb: ExpressionBuilder<Database, 'sessions'>) => eb.or([eb('expires_at', '<=', at), eb('revoked_at', 'is not', null)]);
}

/**
 * Inserts a session. The user's earlier sessions that have ended (expired or revoked) are removed
 * first, so a user's rows stay few; the audit log keeps the history.
 */
export async function insertSession(db: Kysely<Database>, s: SessionRecord): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', s.user_id).where(endedBy(s.created_at)).execute();
  await db.insertInto('sessions').values(s).execute();
}

/**
 * Deletes every session that has ended (expired by `now`, or revoked), of every user, at most `limit` per call;
 * answers how many. The scheduled prune (`pruneSessionsJob`) calls it, so the sessions of users who never sign in
 * again do not stay in the table, nor in every replica's runtime snapshot, for good.
 */
export async function deleteEndedSessions(db: Kysely<Database>, now: number, limit: number): Promise<number> {
  const ended = db.selectFrom('sessions').select('id').where(endedBy(now)).limit(limit);
  const r = await db.deleteFrom('sessions').where('id', 'in', ended).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Revokes one live session of the organisation; false when there is none (already revoked or unknown). */
export async function revokeSession(db: Kysely<Database>, organisationId: string, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('organisation_id', '=', organisationId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Revokes every live session of a user of the organisation (user deleted or deactivated); answers how many. */
export async function revokeUserSessions(db: Kysely<Database>, organisationId: string, userId: string, now: number): Promise<number> {
  const r = await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('organisation_id', '=', organisationId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * A page of sessions not revoked, by id, for the runtime's sessions section. Expiry is not filtered
 * here: the request path compares it with the gateway's clock.
 */
export async function listLiveSessionsPage(store: Store, p: RuntimePage): Promise<SessionRecord[]> {
  let q = store.db.selectFrom('sessions').selectAll().where('revoked_at', 'is', null);
  if (p.afterId !== undefined) q = q.where('id', '>', p.afterId);
  const rows = await q.orderBy('id').limit(p.limit).execute();
  return rows.map((r) => ({
    ...r,
    created_at: Number(r.created_at),
    expires_at: Number(r.expires_at),
    revoked_at: r.revoked_at === null ? null : Number(r.revoked_at),
  }));
}
