import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { ORGANISATION_ROLES, WORKSPACE_ROLES, type WorkspaceRole } from '../../../kernel/roles.js';
import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { SESSIONS_SECTION } from '../../../runtime/sessions-section.js';
import { revokeUserSessions } from '../../../infra/store/repos/sessions.js';
import { deleteUserMcpConnections } from '../../../infra/store/repos/mcp.js';
import { revokeRemovedUpstream } from '../../../features/mcp/oauth/revoke-removed-connections.js';
import { autoCreateUserKey } from '../api-keys/auto-create-key.js';
import { deleteUser, getUser, insertMember, insertUser, listUsers, updateUser, type UserRecord } from '../../../infra/store/repos/users.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { iso } from '../../../identity/paging.js';
import { actsAsOrganisationAdmin, tenantScope } from '../../../identity/authorize.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

/** An organisation role. */
export const OrganisationRoleSchema = StringEnum(ORGANISATION_ROLES);
/** A workspace role. */
export const WorkspaceRoleSchema = StringEnum(WORKSPACE_ROLES);
const Email = Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$' });
const Membership = Type.Object({ id: Type.String({ minLength: 1 }), role: WorkspaceRoleSchema }, { additionalProperties: false });

const CreateUser = Type.Object(
  {
    email: Email,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    role: Type.Optional(OrganisationRoleSchema),
    workspaces: Type.Optional(Type.Array(Membership, { maxItems: 100 })),
  },
  { additionalProperties: false },
);
const UpdateUser = Type.Object(
  {
    email: Type.Optional(Email),
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    role: Type.Optional(OrganisationRoleSchema),
    status: Type.Optional(StringEnum(['active', 'deactivated'])),
  },
  { additionalProperties: false },
);
const UserAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('user'),
  email: Type.String(),
  name: Nullable(Type.String()),
  role: OrganisationRoleSchema,
  status: StringEnum(['active', 'deactivated']),
  workspaces: Type.Array(Type.Object({ id: Type.String(), role: WorkspaceRoleSchema })),
  created_at: Type.String(),
  last_updated_at: Type.String(),
});

function present(u: UserRecord) {
  return {
    id: u.id,
    object: 'user' as const,
    email: u.email,
    name: u.name,
    role: u.role,
    status: u.status,
    workspaces: u.workspaces,
    created_at: iso(u.created_at)!,
    last_updated_at: iso(u.updated_at)!,
  };
}

/** Organisation roles other than `member`, and changes to users holding them, need an organisation owner or admin. */
function assertMayGrant(ctx: ResourceContext, role: string | undefined, param: string): void {
  if (role !== undefined && role !== 'member' && !actsAsOrganisationAdmin(ctx.principal)) {
    throw new GatewayError('forbidden', `Only an organisation owner or admin may give or change the organisation role '${role}'.`, {
      param,
    });
  }
}

async function reread(ctx: ResourceContext, id: string): Promise<UserRecord> {
  const u = await getUser(ctx.db, ctx.scope, id);
  if (!u) throw new GatewayError('not_found', `Unknown user '${id}'.`, { param: 'id' });
  return u;
}

/**
 * `/v1/users`: the organisation's users. Invite (with optional workspace memberships), list (by
 * email), read, update (name, email, organisation role, status) and delete. Deactivating or deleting a
 * user stops its keys on every replica (the api-keys section drops them); deleting revokes them in the
 * same transaction. A workspace principal sees only members of its workspace.
 */
export const usersResource = defineResource({
  name: 'user',
  paths: ['/v1/users'],
  tag: 'users',
  noun: { one: 'a user', many: 'users' },
  permissions: { read: 'users.read', write: 'users.write' },
  runtimeSections: [API_KEYS_SECTION, SESSIONS_SECTION],
  schemas: {
    create: CreateUser,
    update: UpdateUser,
    listQuery: Type.Object({ email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })) }),
    answer: UserAnswer,
  },
  removal: 'delete',
  unique: { param: 'email', message: 'A user with this email already exists in this organisation.' },
  repo: {
    get: (db, scope, id) => getUser(db, scope, id),
    list: (db, scope, query, page) => listUsers(db, scope, { email: query.email }, page),
    remove: (db, scope, u, now) => deleteUser(db, scope.organisationId, u.id, now),
  },
  idOf: (u) => u.id,
  workspaceOf: () => null,
  present,
  async beforeRemove(ctx, u) {
    assertMayGrant(ctx, u.role, 'id');
    if (u.id === ctx.principal.userId) throw new GatewayError('conflict', 'A user cannot delete themselves.', { param: 'id' });
    // Removed here rather than by `deleteUser` (which finds none left): their tokens are revoked upstream after the commit.
    await removeMcpConnections(ctx, u.id);
  },
  async create(ctx, body) {
    assertMayGrant(ctx, body.role, 'role');
    const memberships: Array<{ id: string; role: WorkspaceRole }> = [];
    for (const [i, m] of (body.workspaces ?? []).entries()) {
      let id: string;
      try {
        id = tenantScope(ctx.principal, ctx.deps.runtime.current, m.id).workspaceIds[0]!;
      } catch {
        throw new GatewayError('not_found', `Unknown workspace '${m.id}'.`, { param: `workspaces[${i}].id` });
      }
      if (memberships.some((x) => x.id === id))
        throw new GatewayError('invalid_request', `body.workspaces[${i}]: workspace '${m.id}' is listed twice.`, {
          param: `workspaces[${i}].id`,
        });
      memberships.push({ id, role: m.role });
    }
    if (!memberships.length && !actsAsOrganisationAdmin(ctx.principal)) {
      throw new GatewayError('invalid_request', 'A workspace principal invites users into its workspace: body.workspaces must name it.', {
        param: 'workspaces',
      });
    }
    const user = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      email: body.email,
      name: body.name ?? null,
      role: body.role ?? ('member' as const),
      status: 'active' as const,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertUser(ctx.db, user);
    const autoKeys: string[] = [];
    for (const m of memberships) {
      await insertMember(ctx.db, { workspace_id: m.id, user_id: user.id, role: m.role, created_at: ctx.now });
      const key = await autoCreateUserKey(ctx.db, {
        organisationId: user.organisation_id,
        workspaceId: m.id,
        userId: user.id,
        now: ctx.now,
        secrets: ctx.deps.secrets,
        prefix: ctx.deps.settings.apiKeyPrefix,
      });
      if (key) autoKeys.push(key);
    }
    return {
      record: await reread(ctx, user.id),
      details: { email: user.email, role: user.role, workspaces: memberships, ...(autoKeys.length ? { auto_api_keys: autoKeys } : {}) },
    };
  },
  async update(ctx, u, body) {
    assertMayGrant(ctx, u.role, 'id');
    assertMayGrant(ctx, body.role, 'role');
    if (u.id === ctx.principal.userId && (body.role !== undefined || body.status === 'deactivated')) {
      throw new GatewayError('forbidden', 'A user cannot change their own role or deactivate themselves.', {
        param: body.role !== undefined ? 'role' : 'status',
      });
    }
    await updateUser(
      ctx.db,
      ctx.principal.organisationId,
      u.id,
      { email: body.email, name: body.name, role: body.role, status: body.status },
      ctx.now,
    );
    if (body.status === 'deactivated' && u.status === 'active') {
      await revokeUserSessions(ctx.db, ctx.principal.organisationId, u.id, ctx.now);
      await removeMcpConnections(ctx, u.id);
    }
    const verb = body.status === 'deactivated' && u.status === 'active' ? { deactivated: true } : {};
    return { record: await reread(ctx, u.id), details: { changed: Object.keys(body), ...(body.role ? { role: body.role } : {}), ...verb } };
  },
});

/** Removes a user's MCP connections in the write's transaction; once it commits, their tokens are revoked upstream. */
async function removeMcpConnections(ctx: ResourceContext, userId: string): Promise<void> {
  const removed = await deleteUserMcpConnections(ctx.db, ctx.principal.organisationId, userId);
  await revokeRemovedUpstream(ctx.deps, ctx.db, ctx.principal.organisationId, removed, ctx.afterCommit);
}
