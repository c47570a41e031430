import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { SESSIONS_SECTION } from '../../../runtime/sessions-section.js';
import {
  deleteMember,
  getMember,
  insertMember,
  listMembers,
  updateMemberRole,
  userOfOrganisation,
  type MemberRecord,
} from '../../../infra/store/repos/users.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { iso } from '../../../identity/paging.js';
import { WorkspaceRoleSchema } from '../users/users.resource.js';
import { autoCreateUserKey } from '../api-keys/auto-create-key.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const MemberAnswer = Type.Object({
  object: Type.Literal('workspace_member'),
  workspace_id: Type.String(),
  user_id: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  role: WorkspaceRoleSchema,
  created_at: Type.String(),
});

function present(m: MemberRecord) {
  return {
    object: 'workspace_member' as const,
    workspace_id: m.workspace_id,
    user_id: m.user_id,
    email: m.email,
    name: m.name,
    role: m.role,
    created_at: iso(m.created_at)!,
  };
}

/** The one workspace of the path (`/v1/workspaces/:id/...` narrowed the scope to it). */
function workspaceOfPath(ctx: ResourceContext): string {
  return ctx.scope.workspaceIds[0]!;
}

async function reread(ctx: ResourceContext, workspaceId: string, userId: string): Promise<MemberRecord> {
  const m = await getMember(ctx.db, ctx.scope, workspaceId, userId);
  if (!m) throw new GatewayError('not_found', `User '${userId}' is not a member of this workspace.`, { param: 'user_id' });
  return m;
}

/**
 * `/v1/workspaces/{id}/members`: who belongs to a workspace and with which role (`admin`, `manager`,
 * `member`). Add (with an automatic user key when `user_api_key_auto_create` is on), list, change the
 * role, remove. A change reloads the workspace's keys in the runtime
 * snapshot, so a user key acts with its user's new role on every replica.
 */
export const workspaceMembersResource = defineResource({
  name: 'workspace_member',
  paths: ['/v1/workspaces/:id/members'],
  tag: 'workspaces',
  noun: { one: 'a workspace member', many: 'workspace members' },
  permissions: { read: 'workspaces.read', write: 'workspaces.write' },
  runtimeSections: [API_KEYS_SECTION, SESSIONS_SECTION],
  pathWorkspace: 'id',
  idParam: 'user_id',
  schemas: {
    create: Type.Object({ user_id: Type.String({ minLength: 1 }), role: WorkspaceRoleSchema }, { additionalProperties: false }),
    update: Type.Object({ role: WorkspaceRoleSchema }, { additionalProperties: false }),
    listQuery: Type.Object({}),
    answer: MemberAnswer,
  },
  removal: 'delete',
  unique: { param: 'user_id', message: 'This user is already a member of this workspace.' },
  repo: {
    get: (db, scope, userId) => getMember(db, scope, scope.workspaceIds[0] ?? '', userId),
    list: (db, scope, _query, page) => listMembers(db, scope, scope.workspaceIds[0] ?? '', page),
    remove: (db, _scope, m) => deleteMember(db, m.workspace_id, m.user_id),
  },
  idOf: (m) => m.user_id,
  workspaceOf: (m) => m.workspace_id,
  present,
  async create(ctx, body) {
    const workspaceId = workspaceOfPath(ctx);
    const user = await userOfOrganisation(ctx.db, ctx.principal.organisationId, body.user_id);
    if (!user) throw new GatewayError('not_found', `Unknown user '${body.user_id}'.`, { param: 'user_id' });
    await insertMember(ctx.db, { workspace_id: workspaceId, user_id: user.id, role: body.role, created_at: ctx.now });
    const key = await autoCreateUserKey(ctx.db, {
      organisationId: ctx.principal.organisationId,
      workspaceId,
      userId: user.id,
      now: ctx.now,
      secrets: ctx.deps.secrets,
      prefix: ctx.deps.settings.apiKeyPrefix,
    });
    return {
      record: await reread(ctx, workspaceId, user.id),
      details: { user_id: user.id, role: body.role, ...(key ? { auto_api_key: key } : {}) },
    };
  },
  async update(ctx, m, body) {
    await updateMemberRole(ctx.db, m.workspace_id, m.user_id, body.role);
    return {
      record: await reread(ctx, m.workspace_id, m.user_id),
      details: { user_id: m.user_id, role: body.role, previous_role: m.role },
    };
  },
});
