import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { Principal } from '../../../kernel/principal.js';
import { effectiveWorkspaceRole } from '../../../kernel/roles.js';
import { userRoleIn } from '../../../infra/store/repos/users.js';
import type { ApiKeyRecord, ApiKeyType } from '../../../infra/store/repos/api-keys.js';
import type { ResourceContext } from '../../resource/define-resource.js';

/**
 * The user a new key belongs to (control-plane.md §3): only `workspace-user` keys have one (400 naming
 * `user_id` otherwise). A service principal must name it (400); a user principal defaults to itself and
 * names another user only as a workspace admin (403). The user must be active and have a role in the
 * key's workspace (a membership, or organisation owner/admin); an unknown user is 404.
 */
export async function keyUserOf(
  ctx: ResourceContext,
  type: ApiKeyType,
  workspaceId: string | null,
  requested: string | undefined,
): Promise<string | undefined> {
  if (type !== 'workspace-user') {
    if (requested !== undefined)
      throw new GatewayError('invalid_request', 'body.user_id: only workspace-user keys belong to a user.', { param: 'user_id' });
    return undefined;
  }
  const self = ctx.principal.userId;
  const userId = requested ?? self ?? undefined;
  if (userId === undefined)
    throw new GatewayError('invalid_request', 'body.user_id is required for a workspace-user key created by a service key.', {
      param: 'user_id',
    });
  if (self !== null && userId !== self && ctx.principal.workspaceRole !== 'admin') {
    throw new GatewayError('forbidden', 'Only a workspace admin creates keys for another user.', { param: 'user_id' });
  }
  const role = workspaceId === null ? undefined : await userRoleIn(ctx.db, userId, workspaceId);
  const sameOrganisation = await ctx.db
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .where('organisation_id', '=', ctx.principal.organisationId)
    .executeTakeFirst();
  if (!role || !sameOrganisation) throw new GatewayError('not_found', `Unknown user '${userId}'.`, { param: 'user_id' });
  if (role.status !== 'active')
    throw new GatewayError('invalid_request', `body.user_id: user '${userId}' is deactivated.`, { param: 'user_id' });
  if (effectiveWorkspaceRole(role.organisationRole, role.membershipRole) === null) {
    throw new GatewayError('invalid_request', `body.user_id: user '${userId}' is not a member of workspace '${workspaceId}'.`, {
      param: 'user_id',
    });
  }
  return userId;
}

/**
 * A user principal that is not its workspace's admin changes, rotates and revokes only its own user's
 * keys (403 otherwise); service principals and workspace admins act on any key in reach.
 */
export function assertOwnKey(principal: Principal, key: ApiKeyRecord): void {
  if (principal.userId === null || principal.workspaceRole === 'admin') return;
  if (key.user_id !== principal.userId)
    throw new GatewayError('forbidden', "A user key below workspace admin acts only on its own user's keys.", { param: 'id' });
}
