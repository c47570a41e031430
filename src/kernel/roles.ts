import { PERMISSION_LIST, covers, type Permission, type Scope } from './permissions.js';
import type { SettingKey, SettingValue } from './settings.js';

/**
 * Roles (control-plane.md §1) as sets of scopes, so the one permission check (`authorize`) covers
 * them: a user's key acts with its own scopes ∩ its user's role's scopes in the key's workspace.
 * docs/permissions.md lists the same table (a test checks the two agree).
 */

/** Roles in an organisation. */
export const ORGANISATION_ROLES = ['owner', 'admin', 'member'] as const;
export type OrganisationRole = (typeof ORGANISATION_ROLES)[number];

/** Roles in a workspace. */
export const WORKSPACE_ROLES = ['admin', 'manager', 'member'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

const DATA_PLANE: readonly Scope[] = ['completions.write', 'prompts.render', 'mcp.invoke', 'agents.invoke'];
const MEMBER_READS: readonly Scope[] = [
  'organisation.read',
  'workspaces.read',
  'configs.read',
  'prompts.read',
  'guardrails.read',
  'rate_limits.read',
  'usage_limits.read',
  'virtual_keys.read',
  'providers.read',
  'integrations.read',
  'mcp_servers.read',
  'agent_servers.read',
  'logs.read',
  'analytics.read',
];
const MANAGER_WRITES: readonly Scope[] = [
  'configs.write',
  'prompts.write',
  'guardrails.write',
  'rate_limits.write',
  'usage_limits.write',
  'virtual_keys.write',
  'providers.write',
];

/**
 * What each workspace role may do. Own user keys (`api_keys.write`, `api_keys.rotate`) are open to
 * every role; the API-key resource limits managers and members to their own keys. Organisation
 * owners and admins act as workspace `admin` everywhere, and beyond it hold every scope (`*`).
 */
export const WORKSPACE_ROLE_SCOPES: Readonly<Record<WorkspaceRole, readonly Scope[]>> = {
  admin: [
    ...DATA_PLANE,
    ...MEMBER_READS,
    ...MANAGER_WRITES,
    'integrations.write',
    'mcp_servers.write',
    'agent_servers.write',
    'workspaces.write',
    'users.read',
    'api_keys.*',
  ],
  manager: [...DATA_PLANE, ...MEMBER_READS, ...MANAGER_WRITES, 'api_keys.read', 'api_keys.write', 'api_keys.rotate'],
  member: [...DATA_PLANE, ...MEMBER_READS, 'api_keys.write', 'api_keys.rotate'],
};

/**
 * Scopes a manager holds only while a setting (effective in the workspace) is true; a manager without
 * it reads the resource only.
 */
export const MANAGER_SETTING_SCOPES: Readonly<Partial<Record<Permission, SettingKey>>> = {
  'integrations.write': 'managersWriteWsIntegrations',
  'mcp_servers.write': 'managersWriteMcpServers',
};

/** Whether an organisation role acts as workspace admin in every workspace (owner, admin). */
export function isOrganisationAdmin(role: OrganisationRole | null | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * The role a user acts with in a workspace: `admin` for organisation owners and admins, else their
 * membership's role, else none (null: the user may do nothing there).
 */
export function effectiveWorkspaceRole(
  organisationRole: OrganisationRole,
  membershipRole: WorkspaceRole | null | undefined,
): WorkspaceRole | null {
  if (isOrganisationAdmin(organisationRole)) return 'admin';
  return membershipRole ?? null;
}

/**
 * The permissions a user holds in a workspace: `*` for organisation owners and admins, their
 * workspace role's scopes otherwise (a manager's conditional scopes read `setting`), none without a
 * role. Computed when the runtime snapshot loads a key, never per request.
 */
export function userPermissions(
  organisationRole: OrganisationRole,
  workspaceRole: WorkspaceRole | null,
  setting: (key: SettingKey) => SettingValue,
): readonly Permission[] {
  if (isOrganisationAdmin(organisationRole)) return PERMISSION_LIST;
  if (workspaceRole === null) return [];
  const scopes = [...WORKSPACE_ROLE_SCOPES[workspaceRole]];
  if (workspaceRole === 'manager')
    for (const [p, key] of Object.entries(MANAGER_SETTING_SCOPES)) if (setting(key) === true) scopes.push(p as Permission);
  return PERMISSION_LIST.filter((p) => covers(scopes, p));
}

/** The permissions both scope lists cover (a user key: its scopes ∩ its user's role). */
export function intersectScopes(a: readonly string[], b: readonly string[]): Permission[] {
  return PERMISSION_LIST.filter((p) => covers(a, p) && covers(b, p));
}
