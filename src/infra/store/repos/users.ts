import { sql, type Kysely } from 'kysely';
import type { Database, UsersTable, WorkspaceMembersTable } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import type { OrganisationRole, WorkspaceRole } from '../../../kernel/roles.js';
import { inList } from './tenant.js';
import { revokeUserSessions } from './sessions.js';
import { deleteUserMcpConnections } from './mcp.js';

/** A user of an organisation. */
export interface UserRecord {
  id: string;
  organisation_id: string;
  email: string;
  name: string | null;
  role: OrganisationRole;
  status: 'active' | 'deactivated';
  created_at: number;
  updated_at: number;
  /** The user's memberships visible in the scope it was read with. */
  workspaces: Array<{ id: string; role: WorkspaceRole }>;
}

/** A user's membership of a workspace. */
export interface MemberRecord {
  organisation_id: string;
  workspace_id: string;
  user_id: string;
  role: WorkspaceRole;
  created_at: number;
  email: string;
  name: string | null;
}

/**
 * Users the scope sees: every user of the organisation for organisation-wide scopes, else only
 * members of the scope's workspaces.
 */
function scopedUsers(db: Kysely<Database>, scope: TenantScope) {
  let q = db.selectFrom('users').where('organisation_id', '=', scope.organisationId);
  if (!scope.organisationWide) {
    q = q.where('id', 'in', db.selectFrom('workspace_members').select('user_id').where('workspace_id', 'in', inList(scope)));
  }
  return q;
}

async function withWorkspaces(db: Kysely<Database>, scope: TenantScope, rows: UsersTable[]): Promise<UserRecord[]> {
  if (!rows.length) return [];
  const members = await db
    .selectFrom('workspace_members')
    .selectAll()
    .where(
      'user_id',
      'in',
      rows.map((r) => r.id),
    )
    .where('workspace_id', 'in', inList(scope))
    .orderBy('created_at')
    .orderBy('workspace_id')
    .execute();
  return rows.map((r) => ({
    ...r,
    role: r.role as OrganisationRole,
    status: r.status as UserRecord['status'],
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
    workspaces: members.filter((m) => m.user_id === r.id).map((m) => ({ id: m.workspace_id, role: m.role as WorkspaceRole })),
  }));
}

/** One user of the scope by id, or undefined. */
export async function getUser(db: Kysely<Database>, scope: TenantScope, id: string): Promise<UserRecord | undefined> {
  const row = await scopedUsers(db, scope).selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await withWorkspaces(db, scope, [row]))[0] : undefined;
}

/** A page of the scope's users (optionally one email, case-insensitively), oldest first, with the total. */
export async function listUsers(
  db: Kysely<Database>,
  scope: TenantScope,
  filter: { email?: string },
  page: { limit: number; offset: number },
): Promise<{ rows: UserRecord[]; total: number }> {
  let q = scopedUsers(db, scope);
  if (filter.email !== undefined) q = q.where(sql<string>`lower(email)`, '=', filter.email.toLowerCase());
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: await withWorkspaces(db, scope, rows), total: Number(count?.n ?? 0) };
}

/** Inserts a user (without memberships). */
export async function insertUser(db: Kysely<Database>, user: Omit<UserRecord, 'workspaces'>): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

/** Changes a user of the organisation. */
export async function updateUser(
  db: Kysely<Database>,
  organisationId: string,
  id: string,
  patch: Partial<Pick<UsersTable, 'email' | 'name' | 'role' | 'status'>>,
  now: number,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .where('organisation_id', '=', organisationId)
    .execute();
}

/** Deletes a user of the organisation, its memberships, and revokes its gateway keys, console sessions and MCP connections. */
export async function deleteUser(db: Kysely<Database>, organisationId: string, id: string, now: number): Promise<void> {
  await revokeUserSessions(db, organisationId, id, now);
  await deleteUserMcpConnections(db, organisationId, id);
  await db
    .updateTable('api_keys')
    .set({ status: 'revoked', updated_at: now })
    .where('user_id', '=', id)
    .where('organisation_id', '=', organisationId)
    .execute();
  await db.deleteFrom('workspace_members').where('user_id', '=', id).execute();
  await db.deleteFrom('users').where('id', '=', id).where('organisation_id', '=', organisationId).execute();
}

/** A user of the organisation by id, whatever the scope (for checks made before a membership exists). */
export async function userOfOrganisation(db: Kysely<Database>, organisationId: string, id: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).where('organisation_id', '=', organisationId).executeTakeFirst();
}

function toMember(r: WorkspaceMembersTable & { organisation_id: string; email: string; name: string | null }): MemberRecord {
  return { ...r, role: r.role as WorkspaceRole, created_at: Number(r.created_at) };
}

function scopedMembers(db: Kysely<Database>, scope: TenantScope, workspaceId: string) {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.workspace_id', 'm.user_id', 'm.role', 'm.created_at', 'u.organisation_id', 'u.email', 'u.name'])
    .where('u.organisation_id', '=', scope.organisationId)
    .where('m.workspace_id', '=', workspaceId)
    .where('m.workspace_id', 'in', inList(scope));
}

/** One member of a workspace of the scope, or undefined. */
export async function getMember(
  db: Kysely<Database>,
  scope: TenantScope,
  workspaceId: string,
  userId: string,
): Promise<MemberRecord | undefined> {
  const row = await scopedMembers(db, scope, workspaceId).where('m.user_id', '=', userId).executeTakeFirst();
  return row && toMember(row);
}

/** A page of a workspace's members, oldest first, with the total. */
export async function listMembers(
  db: Kysely<Database>,
  scope: TenantScope,
  workspaceId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: MemberRecord[]; total: number }> {
  const rows = await scopedMembers(db, scope, workspaceId)
    .orderBy('m.created_at')
    .orderBy('m.user_id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const count = await db
    .selectFrom('workspace_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('workspace_id', 'in', inList(scope))
    .executeTakeFirst();
  return { rows: rows.map(toMember), total: Number(count?.n ?? 0) };
}

/** Adds a membership (a duplicate violates the primary key). */
export async function insertMember(db: Kysely<Database>, m: WorkspaceMembersTable): Promise<void> {
  await db.insertInto('workspace_members').values(m).execute();
}

/** Changes a membership's role. */
export async function updateMemberRole(db: Kysely<Database>, workspaceId: string, userId: string, role: WorkspaceRole): Promise<void> {
  await db.updateTable('workspace_members').set({ role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

/** Removes a membership. */
export async function deleteMember(db: Kysely<Database>, workspaceId: string, userId: string): Promise<void> {
  await db.deleteFrom('workspace_members').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

/**
 * The role lookup: a user's organisation role, status and membership role in one workspace
 * (undefined for an unknown user). Sessions use it per login; the runtime snapshot bakes the same
 * facts into each user key (`usersOfKeys`), so the data plane never asks.
 */
export async function userRoleIn(
  db: Kysely<Database>,
  userId: string,
  workspaceId: string,
): Promise<{ organisationRole: OrganisationRole; status: UserRecord['status']; membershipRole: WorkspaceRole | null } | undefined> {
  const row = await db
    .selectFrom('users as u')
    .leftJoin('workspace_members as m', (j) => j.onRef('m.user_id', '=', 'u.id').on('m.workspace_id', '=', workspaceId))
    .select(['u.role', 'u.status', 'm.role as membership_role'])
    .where('u.id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    organisationRole: row.role as OrganisationRole,
    status: row.status as UserRecord['status'],
    membershipRole: (row.membership_role as WorkspaceRole | null) ?? null,
  };
}

/**
 * For a page of keys, in two queries: their users (by id) and those users' memberships of the keys'
 * workspaces (by `${workspaceId}:${userId}`).
 */
export async function usersOfKeys(
  db: Kysely<Database>,
  keys: ReadonlyArray<{ user_id?: string | null; workspace_id: string | null }>,
): Promise<{ users: Map<string, UsersTable>; memberships: Map<string, WorkspaceRole> }> {
  const userIds = [...new Set(keys.map((k) => k.user_id).filter((id): id is string => typeof id === 'string'))];
  const users = new Map<string, UsersTable>();
  const memberships = new Map<string, WorkspaceRole>();
  if (!userIds.length) return { users, memberships };
  for (const u of await db.selectFrom('users').selectAll().where('id', 'in', userIds).execute()) users.set(u.id, u);
  for (const m of await db.selectFrom('workspace_members').selectAll().where('user_id', 'in', userIds).execute())
    memberships.set(`${m.workspace_id}:${m.user_id}`, m.role as WorkspaceRole);
  return { users, memberships };
}
