import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { holds, principalOfKey, type Principal } from '../kernel/principal.js';
import type { Permission } from '../kernel/permissions.js';
import { isOrganisationAdmin } from '../kernel/roles.js';
import type { TenantScope } from '../kernel/tenant-scope.js';
import type { RuntimeSnapshot } from '../runtime/snapshot.js';

/** The principal of an authenticated request (resolved once per key and snapshot). 401 when there is none. */
export function principalOf(request: FastifyRequest): Principal {
  const key = request.gw.key;
  if (!key) throw new GatewayError('invalid_api_key');
  return principalOfKey(key);
}

/**
 * The one permission check: 403 `forbidden` naming the missing scope. Called only by the route guard
 * the mounting code installs (every `/v1` route declares its permission).
 */
export function authorize(principal: Principal, permission: Permission): void {
  if (!holds(principal, permission)) throw new GatewayError('forbidden', `This API key lacks the '${permission}' scope.`);
}

/**
 * The tenant a request may act on: the principal's workspace, or for organisation principals every
 * workspace of the organisation (and organisation-level rows). `requested` (a workspace id or slug)
 * narrows it; a workspace outside the principal's reach is 404 `not_found`, never 403, so ids of
 * other tenants are not confirmed.
 */
export function tenantScope(principal: Principal, snapshot: RuntimeSnapshot, requested?: string): TenantScope {
  if (requested !== undefined) {
    const ws = snapshot.workspacesById.get(requested) ?? snapshot.workspacesBySlug.get(`${principal.organisationId}:${requested}`);
    if (!ws || ws.organisation_id !== principal.organisationId || (principal.workspaceId !== null && principal.workspaceId !== ws.id)) {
      throw new GatewayError('not_found', `Unknown workspace '${requested}'.`, { param: 'workspace_id' });
    }
    return { organisationId: principal.organisationId, workspaceIds: [ws.id], organisationWide: false };
  }
  if (principal.workspaceId !== null)
    return { organisationId: principal.organisationId, workspaceIds: [principal.workspaceId], organisationWide: false };
  const ids: string[] = [];
  for (const w of snapshot.workspacesById.values()) if (w.organisation_id === principal.organisationId) ids.push(w.id);
  return { organisationId: principal.organisationId, workspaceIds: ids, organisationWide: true };
}

/**
 * Whether the principal acts as an organisation owner or admin (control-plane.md §1): an
 * organisation-level key, or a user key of an owner or admin. Creating and archiving workspaces,
 * listing archived ones, organisation settings and organisation roles need it (403 otherwise).
 */
export function actsAsOrganisationAdmin(principal: Principal): boolean {
  return principal.workspaceId === null || isOrganisationAdmin(principal.organisationRole);
}

/** 403 `forbidden` unless the principal acts as an organisation owner or admin; `what` names the action. */
export function requireOrganisationAdmin(principal: Principal, what: string): void {
  if (!actsAsOrganisationAdmin(principal))
    throw new GatewayError(
      'forbidden',
      `${what} needs an organisation owner or admin (an organisation key, or a user key of an owner or admin).`,
    );
}
