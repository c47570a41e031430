import { covers, type Permission, type Scope } from './permissions.js';
import { intersectScopes, type OrganisationRole, type WorkspaceRole } from './roles.js';
import { FULL_VISIBILITY, type DataVisibility } from './data-visibility.js';

/** The types of gateway key (control-plane.md §1). */
export type KeyType = 'organisation-service' | 'workspace-service' | 'workspace-user';

const DATA_PLANE: readonly Scope[] = ['completions.write', 'prompts.render'];
const SERVICE_READS: readonly Scope[] = [
  'configs.read',
  'prompts.read',
  'guardrails.read',
  'rate_limits.read',
  'virtual_keys.read',
  'logs.read',
];

/**
 * The scopes a key created without scopes acts with: its type's data-plane and read scopes, never a
 * write or admin scope. Admin scopes are granted explicitly (the bootstrap admin key holds `*`).
 * docs/permissions.md lists them (a test checks the two agree).
 */
export const DEFAULT_SCOPES: Readonly<Record<KeyType, readonly Scope[]>> = {
  'organisation-service': [...DATA_PLANE, ...SERVICE_READS],
  'workspace-service': [...DATA_PLANE, ...SERVICE_READS],
  'workspace-user': [...DATA_PLANE, 'configs.read', 'prompts.read', 'virtual_keys.read', 'logs.read'],
};

/** How a principal authenticated: a service key, a user key, a user's console session, or a JWT (SCIM tokens act only on /v1/scim/v2). */
export type PrincipalKind = 'service_key' | 'user_key' | 'session' | 'jwt';

/**
 * Who makes a request, resolved once per request from its credential: the organisation it belongs to,
 * its workspace (null for organisation-level principals) and the scopes it acts with (its type's
 * defaults when the key has none).
 */
export interface Principal {
  readonly kind: PrincipalKind;
  /** The key's id; for a session, the session's id. */
  readonly keyId: string;
  readonly keyType: KeyType;
  readonly organisationId: string;
  readonly workspaceId: string | null;
  readonly scopes: readonly string[];
  /** The user a `workspace-user` key belongs to (null for service keys and user keys made before users existed). */
  readonly userId: string | null;
  /** That user's organisation role (null without a user). */
  readonly organisationRole: OrganisationRole | null;
  /** That user's role in the key's workspace (null without a user, or when the user has none there). */
  readonly workspaceRole: WorkspaceRole | null;
  /** What of its workspace's logs and analytics it sees (`dataVisibility`; everything for service keys). */
  readonly visibility: DataVisibility;
}

/**
 * The user behind a key, as the runtime snapshot bakes it when it loads the key: the user's roles and
 * the permissions those roles allow in the key's workspace (`userPermissions`).
 */
export interface KeyUser {
  readonly id: string;
  readonly organisationRole: OrganisationRole;
  readonly workspaceRole: WorkspaceRole | null;
  readonly permissions: readonly Permission[];
  /** What of the workspace's logs and analytics the user sees there (`dataVisibility`). */
  readonly visibility: DataVisibility;
}

/** The facts of a gateway key a principal is made from. */
export interface KeyFacts {
  readonly id: string;
  readonly type: KeyType;
  readonly organisationId: string;
  readonly workspaceId: string | null;
  readonly scopes: readonly string[];
  /** Its user, for a `workspace-user` key that has one. */
  readonly user?: KeyUser;
  /** True when the facts stand for a user's console session (`id` is the session's): the principal's kind is `session`. */
  readonly session?: boolean;
  /** True when the facts stand for a verified JWT (`id` is its subject): the principal's kind is `jwt`. */
  readonly jwt?: boolean;
}

const byKey = new WeakMap<KeyFacts, Principal>();

/**
 * The principal of a gateway key. Keys of one runtime snapshot are stable objects, so the principal
 * is built once per key and snapshot, not per request. A key with a user acts with its scopes ∩ what
 * its user's role allows in its workspace.
 */
export function principalOfKey(key: KeyFacts): Principal {
  let p = byKey.get(key);
  if (!p) {
    const own = key.scopes.length ? key.scopes : DEFAULT_SCOPES[key.type];
    const user = key.user;
    p = {
      kind: key.session ? 'session' : key.jwt ? 'jwt' : key.type === 'workspace-user' ? 'user_key' : 'service_key',
      keyId: key.id,
      keyType: key.type,
      organisationId: key.organisationId,
      workspaceId: key.workspaceId,
      scopes: user ? intersectScopes(own, user.permissions) : own,
      userId: user?.id ?? null,
      organisationRole: user?.organisationRole ?? null,
      workspaceRole: user?.workspaceRole ?? null,
      visibility: user?.visibility ?? FULL_VISIBILITY,
    };
    byKey.set(key, p);
  }
  return p;
}

/** Whether the principal holds the permission. */
export function holds(principal: Principal, permission: Permission): boolean {
  return covers(principal.scopes, permission);
}
