import { sql, type Kysely } from 'kysely';
import type { Database, ScimTokensTable, ScimGroupsTable, ScimWorkspaceMappingsTable } from '../schema.js';
import type { WorkspaceRole } from '../../../kernel/roles.js';
import { revokeUserSessions } from './sessions.js';
import { deleteUserMcpConnections, type McpConnection } from './mcp.js';

/** A SCIM token row (the token's hash, never the token). */
export type ScimTokenRecord = ScimTokensTable;
/** A SCIM group row. */
export type ScimGroupRecord = ScimGroupsTable;

/** A group-to-workspace mapping with its group's name. */
export interface ScimMappingRecord extends Omit<ScimWorkspaceMappingsTable, 'role'> {
  role: WorkspaceRole;
  group_name: string;
}

/** A user as SCIM sees it: the gateway user and its SCIM attributes. */
export interface ScimUserRecord {
  id: string;
  organisation_id: string;
  email: string;
  name: string | null;
  status: string;
  created_at: number;
  updated_at: number;
  user_name: string;
  external_id: string | null;
  attributes: Record<string, unknown>;
}

/** The attributes a SCIM list filter may compare (`eq` only). */
export interface ScimFilter {
  attribute: 'userName' | 'externalId' | 'displayName' | 'id';
  value: string;
}

// Tokens

export async function insertScimToken(db: Kysely<Database>, t: ScimTokenRecord): Promise<void> {
  await db.insertInto('scim_tokens').values(t).execute();
}

/** The live token of a hash, or undefined. */
export async function scimTokenByHash(db: Kysely<Database>, hash: string): Promise<ScimTokenRecord | undefined> {
  const row = await db
    .selectFrom('scim_tokens')
    .selectAll()
    .where('token_hash', '=', hash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row && { ...row, created_at: Number(row.created_at), revoked_at: null };
}

export async function getScimToken(db: Kysely<Database>, organisationId: string, id: string): Promise<ScimTokenRecord | undefined> {
  const row = await db
    .selectFrom('scim_tokens')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row && { ...row, created_at: Number(row.created_at), revoked_at: null };
}

export async function listScimTokens(
  db: Kysely<Database>,
  organisationId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ScimTokenRecord[]; total: number }> {
  const q = db.selectFrom('scim_tokens').where('organisation_id', '=', organisationId).where('revoked_at', 'is', null);
  const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute();
  const count = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  return { rows: rows.map((r) => ({ ...r, created_at: Number(r.created_at), revoked_at: null })), total: Number(count?.n ?? 0) };
}

export async function revokeScimToken(db: Kysely<Database>, organisationId: string, id: string, now: number): Promise<void> {
  await db.updateTable('scim_tokens').set({ revoked_at: now }).where('organisation_id', '=', organisationId).where('id', '=', id).execute();
}

// Users

function scimUsers(db: Kysely<Database>, organisationId: string) {
  return db
    .selectFrom('scim_users as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      'u.id',
      'u.organisation_id',
      'u.email',
      'u.name',
      'u.status',
      'u.created_at',
      'u.updated_at',
      's.user_name',
      's.external_id',
      's.attributes',
    ])
    .where('s.organisation_id', '=', organisationId);
}

function toScimUser(r: {
  id: string;
  organisation_id: string;
  email: string;
  name: string | null;
  status: string;
  created_at: number;
  updated_at: number;
  user_name: string;
  external_id: string | null;
  attributes: string;
}): ScimUserRecord {
  return {
    ...r,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
    attributes: JSON.parse(r.attributes) as Record<string, unknown>,
  };
}

/** One SCIM-provisioned user of the organisation, or undefined. */
export async function getScimUser(db: Kysely<Database>, organisationId: string, id: string): Promise<ScimUserRecord | undefined> {
  const row = await scimUsers(db, organisationId).where('u.id', '=', id).executeTakeFirst();
  return row && toScimUser(row);
}

/** A page of SCIM-provisioned users (oldest first) matching the filter, with the total. */
export async function listScimUsers(
  db: Kysely<Database>,
  organisationId: string,
  filter: ScimFilter | undefined,
  page: { limit: number; offset: number },
): Promise<{ rows: ScimUserRecord[]; total: number }> {
  let q = scimUsers(db, organisationId);
  if (filter?.attribute === 'userName') q = q.where(sql<string>`lower(s.user_name)`, '=', filter.value.toLowerCase());
  else if (filter?.attribute === 'externalId') q = q.where('s.external_id', '=', filter.value);
  else if (filter?.attribute === 'id') q = q.where('u.id', '=', filter.value);
  else if (filter?.attribute === 'displayName') q = q.where('u.name', '=', filter.value);
  const count = await q
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const rows = page.limit === 0 ? [] : await q.orderBy('u.created_at').orderBy('u.id').limit(page.limit).offset(page.offset).execute();
  return { rows: rows.map(toScimUser), total: Number(count?.n ?? 0) };
}

/** Links a gateway user to its SCIM attributes (insert or replace). */
export async function saveScimUser(
  db: Kysely<Database>,
  organisationId: string,
  userId: string,
  s: { user_name: string; external_id: string | null; attributes: Record<string, unknown> },
): Promise<void> {
  const values = { user_name: s.user_name, external_id: s.external_id, attributes: JSON.stringify(s.attributes) };
  await db
    .insertInto('scim_users')
    .values({ user_id: userId, organisation_id: organisationId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .execute();
}

/** Unlinks a user from SCIM (its SCIM row and group memberships go; the gateway user stays). */
export async function unlinkScimUser(db: Kysely<Database>, userId: string): Promise<void> {
  await db.deleteFrom('scim_group_members').where('user_id', '=', userId).execute();
  await db.deleteFrom('scim_users').where('user_id', '=', userId).execute();
}

/**
 * Deactivates a user of the organisation and revokes, in the caller's transaction, their console
 * sessions, user keys and MCP connections (control-plane.md §2: the same revocation as a user's deletion);
 * the MCP connections removed (their tokens may be revoked upstream once this commits).
 */
export async function deactivateUser(db: Kysely<Database>, organisationId: string, userId: string, now: number): Promise<McpConnection[]> {
  await db
    .updateTable('users')
    .set({ status: 'deactivated', updated_at: now })
    .where('id', '=', userId)
    .where('organisation_id', '=', organisationId)
    .execute();
  await revokeUserSessions(db, organisationId, userId, now);
  const connections = await deleteUserMcpConnections(db, organisationId, userId);
  await db
    .updateTable('api_keys')
    .set({ status: 'revoked', updated_at: now })
    .where('user_id', '=', userId)
    .where('organisation_id', '=', organisationId)
    .where('status', '!=', 'revoked')
    .execute();
  return connections;
}

// Groups

function toGroup(r: ScimGroupsTable): ScimGroupRecord {
  return { ...r, created_at: Number(r.created_at), updated_at: Number(r.updated_at) };
}

export async function getScimGroup(db: Kysely<Database>, organisationId: string, id: string): Promise<ScimGroupRecord | undefined> {
  const row = await db
    .selectFrom('scim_groups')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toGroup(row);
}

export async function scimGroupByName(db: Kysely<Database>, organisationId: string, name: string): Promise<ScimGroupRecord | undefined> {
  const row = await db
    .selectFrom('scim_groups')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where(sql<string>`lower(display_name)`, '=', name.toLowerCase())
    .executeTakeFirst();
  return row && toGroup(row);
}

export async function listScimGroups(
  db: Kysely<Database>,
  organisationId: string,
  filter: ScimFilter | undefined,
  page: { limit: number; offset: number },
): Promise<{ rows: ScimGroupRecord[]; total: number }> {
  let q = db.selectFrom('scim_groups').where('organisation_id', '=', organisationId);
  if (filter?.attribute === 'displayName') q = q.where(sql<string>`lower(display_name)`, '=', filter.value.toLowerCase());
  else if (filter?.attribute === 'externalId') q = q.where('external_id', '=', filter.value);
  else if (filter?.attribute === 'id') q = q.where('id', '=', filter.value);
  else if (filter?.attribute === 'userName') q = q.where(sql<boolean>`1 = 0`);
  const count = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows =
    page.limit === 0 ? [] : await q.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute();
  return { rows: rows.map(toGroup), total: Number(count?.n ?? 0) };
}

export async function insertScimGroup(db: Kysely<Database>, g: ScimGroupRecord): Promise<void> {
  await db.insertInto('scim_groups').values(g).execute();
}

export async function updateScimGroup(
  db: Kysely<Database>,
  organisationId: string,
  id: string,
  patch: { display_name: string; external_id: string | null },
  now: number,
): Promise<void> {
  await db
    .updateTable('scim_groups')
    .set({ ...patch, updated_at: now })
    .where('organisation_id', '=', organisationId)
    .where('id', '=', id)
    .execute();
}

export async function deleteScimGroup(db: Kysely<Database>, organisationId: string, id: string): Promise<void> {
  await db.deleteFrom('scim_workspace_mappings').where('group_id', '=', id).execute();
  await db.deleteFrom('scim_group_members').where('group_id', '=', id).execute();
  await db.deleteFrom('scim_groups').where('organisation_id', '=', organisationId).where('id', '=', id).execute();
}

/** Members (user ids, with email and name) of some groups. */
export async function membersOfGroups(
  db: Kysely<Database>,
  groupIds: readonly string[],
): Promise<Array<{ group_id: string; user_id: string; email: string; name: string | null }>> {
  if (!groupIds.length) return [];
  return db
    .selectFrom('scim_group_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.group_id', 'm.user_id', 'u.email', 'u.name'])
    .where('m.group_id', 'in', [...groupIds])
    .orderBy('u.email')
    .execute();
}

/** Groups (id and name) some users belong to. */
export async function groupsOfUsers(
  db: Kysely<Database>,
  userIds: readonly string[],
): Promise<Array<{ user_id: string; group_id: string; display_name: string }>> {
  if (!userIds.length) return [];
  return db
    .selectFrom('scim_group_members as m')
    .innerJoin('scim_groups as g', 'g.id', 'm.group_id')
    .select(['m.user_id', 'm.group_id', 'g.display_name'])
    .where('m.user_id', 'in', [...userIds])
    .orderBy('g.display_name')
    .execute();
}

export async function addGroupMembers(db: Kysely<Database>, groupId: string, userIds: readonly string[]): Promise<void> {
  for (const userId of userIds) {
    await db
      .insertInto('scim_group_members')
      .values({ group_id: groupId, user_id: userId })
      .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
      .execute();
  }
}

export async function removeGroupMembers(db: Kysely<Database>, groupId: string, userIds: readonly string[]): Promise<void> {
  if (!userIds.length) return;
  await db
    .deleteFrom('scim_group_members')
    .where('group_id', '=', groupId)
    .where('user_id', 'in', [...userIds])
    .execute();
}

/** The SCIM-provisioned users among `ids` (those of the organisation). */
export async function knownScimUserIds(db: Kysely<Database>, organisationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .selectFrom('scim_users')
    .select('user_id')
    .where('organisation_id', '=', organisationId)
    .where('user_id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

// Mappings

function mappings(db: Kysely<Database>, organisationId: string) {
  return db
    .selectFrom('scim_workspace_mappings as m')
    .innerJoin('scim_groups as g', 'g.id', 'm.group_id')
    .select(['m.id', 'm.organisation_id', 'm.workspace_id', 'm.group_id', 'm.role', 'm.created_at', 'g.display_name as group_name'])
    .where('m.organisation_id', '=', organisationId);
}

function toMapping(r: {
  id: string;
  organisation_id: string;
  workspace_id: string;
  group_id: string;
  role: string;
  created_at: number;
  group_name: string;
}): ScimMappingRecord {
  return { ...r, role: r.role as WorkspaceRole, created_at: Number(r.created_at) };
}

export async function getScimMapping(
  db: Kysely<Database>,
  organisationId: string,
  workspaceIds: readonly string[],
  id: string,
): Promise<ScimMappingRecord | undefined> {
  if (!workspaceIds.length) return undefined;
  const row = await mappings(db, organisationId)
    .where('m.id', '=', id)
    .where('m.workspace_id', 'in', [...workspaceIds])
    .executeTakeFirst();
  return row && toMapping(row);
}

export async function listScimMappings(
  db: Kysely<Database>,
  organisationId: string,
  workspaceIds: readonly string[],
  page: { limit: number; offset: number },
): Promise<{ rows: ScimMappingRecord[]; total: number }> {
  if (!workspaceIds.length) return { rows: [], total: 0 };
  const rows = await mappings(db, organisationId)
    .where('m.workspace_id', 'in', [...workspaceIds])
    .orderBy('m.created_at', 'desc')
    .orderBy('m.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const count = await db
    .selectFrom('scim_workspace_mappings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organisation_id', '=', organisationId)
    .where('workspace_id', 'in', [...workspaceIds])
    .executeTakeFirst();
  return { rows: rows.map(toMapping), total: Number(count?.n ?? 0) };
}

/** Every mapping of the organisation (membership sync). */
export async function allScimMappings(db: Kysely<Database>, organisationId: string): Promise<ScimMappingRecord[]> {
  return (await mappings(db, organisationId).execute()).map(toMapping);
}

export async function insertScimMapping(db: Kysely<Database>, m: Omit<ScimWorkspaceMappingsTable, never>): Promise<void> {
  await db.insertInto('scim_workspace_mappings').values(m).execute();
}

export async function deleteScimMapping(db: Kysely<Database>, organisationId: string, id: string): Promise<void> {
  await db.deleteFrom('scim_workspace_mappings').where('organisation_id', '=', organisationId).where('id', '=', id).execute();
}
