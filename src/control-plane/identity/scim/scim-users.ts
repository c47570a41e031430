import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../../infra/store/schema.js';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  deactivateUser,
  getScimUser,
  groupsOfUsers,
  listScimUsers,
  saveScimUser,
  unlinkScimUser,
  type ScimUserRecord,
} from '../../../infra/store/repos/scim.js';
import { insertUser, updateUser } from '../../../infra/store/repos/users.js';
import { ScimError, notFound } from './scim-error.js';
import { listResponse, readFilter, readPage } from './scim-query.js';
import { applyPatch } from './scim-patch-ops.js';
import { presentUser, readUser, type UserInput } from './scim-user-shape.js';
import { scimAudit, scimWrite, type ScimCall } from './scim-call.js';
import { syncMemberships } from './sync-memberships.js';
import type { AfterCommit } from '../../../kernel/after-commit.js';
import { revokeRemovedUpstream } from '../../../features/mcp/oauth/revoke-removed-connections.js';

async function present(db: Kysely<Database>, call: ScimCall, u: ScimUserRecord) {
  return presentUser(u, await groupsOfUsers(db, [u.id]), call.base);
}

async function load(db: Kysely<Database>, call: ScimCall, id: string): Promise<ScimUserRecord> {
  const u = await getScimUser(db, call.organisationId, id);
  if (!u) throw notFound('User', id);
  return u;
}

/** `GET /Users` with `filter`, `startIndex`, `count`. */
export async function listUsers(call: ScimCall, query: Record<string, unknown>) {
  const filter = readFilter(query.filter);
  const page = readPage(query);
  const db = call.deps.store.db;
  const { rows, total } = await listScimUsers(db, call.organisationId, filter, page);
  const groups = await groupsOfUsers(
    db,
    rows.map((r) => r.id),
  );
  return listResponse(
    rows.map((u) =>
      presentUser(
        u,
        groups.filter((g) => g.user_id === u.id),
        call.base,
      ),
    ),
    total,
    page.startIndex,
  );
}

/** `GET /Users/{id}`. */
export async function readUserResource(call: ScimCall, id: string) {
  return present(call.deps.store.db, call, await load(call.deps.store.db, call, id));
}

/**
 * Deactivates a user in the write's transaction (sessions, keys and MCP connections revoked); once the write
 * commits, the removed MCP connections' tokens are revoked upstream.
 */
async function deactivate(db: Kysely<Database>, call: ScimCall, userId: string, afterCommit: AfterCommit): Promise<void> {
  const removed = await deactivateUser(db, call.organisationId, userId, call.now);
  await revokeRemovedUpstream(call.deps, db, call.organisationId, removed, afterCommit);
}

/**
 * Applies a User input to an existing user: its fields, its SCIM row, and — when it goes from active
 * to inactive — the deactivation (sessions and keys revoked in the same transaction).
 */
async function apply(db: Kysely<Database>, call: ScimCall, u: ScimUserRecord, input: UserInput, afterCommit: AfterCommit): Promise<void> {
  const deactivating = u.status === 'active' && !input.active;
  await updateUser(
    db,
    call.organisationId,
    u.id,
    { email: input.email, name: input.name, ...(input.active && u.status !== 'active' ? { status: 'active' } : {}) },
    call.now,
  );
  await saveScimUser(db, call.organisationId, u.id, {
    user_name: input.userName,
    external_id: input.externalId,
    attributes: input.attributes,
  });
  if (deactivating) {
    await deactivate(db, call, u.id, afterCommit);
    await scimAudit(db, call, 'user.deactivate', 'user', u.id, { user_name: input.userName });
  } else {
    await scimAudit(db, call, 'user.update', 'user', u.id, { user_name: input.userName, active: input.active });
  }
}

/**
 * `POST /Users`: a `userName` already provisioned is 409 `uniqueness`. A gateway user with the same
 * email (invited or signed in by SSO before) is adopted; otherwise a user is created with the
 * organisation role `member`. `active: false` creates it deactivated.
 */
export async function createUser(call: ScimCall, body: unknown) {
  const input = readUser(body);
  return scimWrite(call, async (db, afterCommit) => {
    const taken = await db
      .selectFrom('scim_users')
      .select('user_id')
      .where('organisation_id', '=', call.organisationId)
      .where(sql<string>`lower(user_name)`, '=', input.userName.toLowerCase())
      .executeTakeFirst();
    if (taken) throw new ScimError(409, `A user with userName '${input.userName}' already exists.`, 'uniqueness');
    const existing = await db
      .selectFrom('users')
      .selectAll()
      .where('organisation_id', '=', call.organisationId)
      .where(sql<string>`lower(email)`, '=', input.email.toLowerCase())
      .executeTakeFirst();
    let id: string;
    if (existing) {
      const linked = await db.selectFrom('scim_users').select('user_id').where('user_id', '=', existing.id).executeTakeFirst();
      if (linked) throw new ScimError(409, `A user with the email '${input.email}' is already provisioned.`, 'uniqueness');
      id = existing.id;
      await updateUser(
        db,
        call.organisationId,
        id,
        { name: input.name ?? existing.name, status: input.active ? 'active' : existing.status },
        call.now,
      );
    } else {
      id = uuid();
      await insertUser(db, {
        id,
        organisation_id: call.organisationId,
        email: input.email,
        name: input.name,
        role: 'member',
        status: input.active ? 'active' : 'deactivated',
        created_at: call.now,
        updated_at: call.now,
      });
    }
    await saveScimUser(db, call.organisationId, id, {
      user_name: input.userName,
      external_id: input.externalId,
      attributes: input.attributes,
    });
    if (existing && existing.status === 'active' && !input.active) await deactivate(db, call, id, afterCommit);
    await scimAudit(db, call, 'user.create', 'user', id, {
      user_name: input.userName,
      adopted: existing !== undefined,
      active: input.active,
    });
    return present(db, call, await load(db, call, id));
  });
}

/** `PUT /Users/{id}`: replaces the whole resource. */
export async function replaceUser(call: ScimCall, id: string, body: unknown) {
  const input = readUser(body);
  return scimWrite(call, async (db, afterCommit) => {
    const u = await load(db, call, id);
    await apply(db, call, u, input, afterCommit);
    return present(db, call, await load(db, call, id));
  });
}

/** `PATCH /Users/{id}`: the operations applied to the current resource, then stored like a PUT. */
export async function patchUser(call: ScimCall, id: string, body: unknown) {
  return scimWrite(call, async (db, afterCommit) => {
    const u = await load(db, call, id);
    // `groups` and `meta` are read-only: readUser ignores them in the patched copy.
    const input = readUser(await applyPatch(await present(db, call, u), body));
    await apply(db, call, u, input, afterCommit);
    return present(db, call, await load(db, call, id));
  });
}

/**
 * `DELETE /Users/{id}`: deactivates the user (sessions and keys revoked in the same transaction),
 * unlinks it from SCIM (it is 404 afterwards; its group memberships go, and so do the workspace
 * memberships they granted). The gateway user stays, deactivated, for the audit trail.
 */
export async function deleteUserResource(call: ScimCall, id: string): Promise<void> {
  await scimWrite(call, async (db, afterCommit) => {
    const u = await load(db, call, id);
    await deactivate(db, call, u.id, afterCommit);
    await unlinkScimUser(db, u.id);
    await syncMemberships(db, call, [u.id]);
    await scimAudit(db, call, 'user.deactivate', 'user', u.id, { user_name: u.user_name, reason: 'scim_delete' });
  });
}
