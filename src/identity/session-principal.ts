import { dataVisibility } from '../kernel/data-visibility.js';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { PERMISSION_LIST } from '../kernel/permissions.js';
import { effectiveSetting } from '../kernel/settings.js';
import { effectiveWorkspaceRole, isOrganisationAdmin, userPermissions } from '../kernel/roles.js';
import { requestDefaultsOf } from '../runtime/core-sections.js';
import { SESSIONS_SECTION, type LiveSession, type SessionsSection } from '../runtime/sessions-section.js';
import { sectionOf, type AuthKey, type RuntimeSnapshot } from '../runtime/snapshot.js';
import type { Workspace } from '../infra/store/repos/organisations.js';

/** The header naming the workspace a session request acts in (id or slug). */
export const SESSION_WORKSPACE_HEADER = 'x-gateway-workspace';

/** The live session of a cookie token's hash in the snapshot, or undefined. */
export function liveSession(snapshot: RuntimeSnapshot, tokenHash: string): LiveSession | undefined {
  return sectionOf<SessionsSection>(snapshot, SESSIONS_SECTION)?.get(tokenHash);
}

/**
 * The workspace a session acts in: `requested` (id or slug) when given — one of the organisation's
 * where the user has a role (organisation owners and admins: any), else 404 `not_found`; without it,
 * null (the whole organisation) for organisation owners and admins, else the organisation's default
 * workspace when the user is a member there, else their oldest membership, else the default workspace
 * (where they may do nothing).
 */
function workspaceOf(s: LiveSession, snapshot: RuntimeSnapshot, requested: string | undefined): Workspace | null {
  const admin = isOrganisationAdmin(s.user.role);
  if (requested !== undefined) {
    const ws = snapshot.workspacesById.get(requested) ?? snapshot.workspacesBySlug.get(`${s.organisationId}:${requested}`);
    if (!ws || ws.organisation_id !== s.organisationId || (!admin && !s.memberships.has(ws.id))) {
      throw new GatewayError('not_found', `Unknown workspace '${requested}'.`, { param: SESSION_WORKSPACE_HEADER });
    }
    return ws;
  }
  if (admin) return null;
  const fallback = snapshot.defaultWorkspaceByOrganisation.get(s.organisationId);
  if (fallback !== undefined && s.memberships.has(fallback)) return snapshot.workspacesById.get(fallback) ?? null;
  for (const id of s.memberships.keys()) {
    const ws = snapshot.workspacesById.get(id);
    if (ws && ws.organisation_id === s.organisationId) return ws;
  }
  const ws = fallback === undefined ? undefined : snapshot.workspacesById.get(fallback);
  if (!ws) throw new GatewayError('forbidden', 'This user belongs to no workspace of the organisation.');
  return ws;
}

/**
 * The key facts a session request acts with (its principal is built from them like a user key's):
 * the user's organisation role, their role in the chosen workspace and the permissions those allow
 * there (every permission for organisation owners and admins). Built once per session and workspace
 * and kept in the live session (a section reload starts afresh), so a request computes nothing.
 */
export function sessionKeyFor(s: LiveSession, snapshot: RuntimeSnapshot, requested: string | undefined): AuthKey {
  const ws = workspaceOf(s, snapshot, requested);
  const cacheKey = ws?.id ?? '';
  const cached = s.keys.get(cacheKey);
  if (cached) return cached;
  const organisationRole = s.user.role;
  const workspaceRole = ws === null ? 'admin' : effectiveWorkspaceRole(organisationRole, s.memberships.get(ws.id));
  const permissions =
    ws === null
      ? PERMISSION_LIST
      : userPermissions(organisationRole, workspaceRole, (key) => effectiveSetting(key, ws.settings, s.organisationSettings).value);
  // Org-wide (no workspace chosen): the organisation's settings decide what a non-member admin sees.
  const visibility = dataVisibility(
    { organisationRole, membershipRole: ws === null ? null : (s.memberships.get(ws.id) ?? null) },
    (key) => effectiveSetting(key, ws?.settings, s.organisationSettings).value,
  );
  const defaults = ws?.defaults ? requestDefaultsOf({ defaults: null, workspaceDefaults: ws.defaults }) : undefined;
  const key: AuthKey = {
    id: s.id,
    organisationId: s.organisationId,
    workspaceId: ws?.id ?? null,
    type: ws === null ? 'organisation-service' : 'workspace-user',
    scopes: ['*'],
    expiresAt: s.expiresAt,
    name: `session of ${s.user.email}`,
    ...(defaults ? { defaults } : {}),
    user: { id: s.userId, organisationRole, workspaceRole, permissions, visibility },
    session: true,
    ...(effectiveSetting('log_bodies', ws?.settings, s.organisationSettings).value === true ? { logBodies: true } : {}),
  };
  s.keys.set(cacheKey, key);
  return key;
}
