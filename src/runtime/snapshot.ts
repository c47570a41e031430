import type { CompiledConfig } from '../routing/compiled-config.js';
import type { ResolvedVirtualKey } from '../routing/resolve-target.js';
import type { ApiKeyType } from '../infra/store/repos/api-keys.js';
import type { Workspace } from '../infra/store/repos/organisations.js';
import type { KeyUser } from '../kernel/principal.js';

/**
 * Defaults for the data-plane requests of a key, as the hot path applies them (see
 * `data-plane/pipeline/request-defaults.ts`): `configId` routes a request without `x-gateway-config`,
 * `metadata` goes under the request's, and with `allowConfigOverride` false an explicit config is refused.
 */
export interface RequestDefaults {
  readonly configId?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly allowConfigOverride: boolean;
}

/** A gateway key as the hot path checks it. */
export interface AuthKey {
  id: string;
  organisationId: string;
  workspaceId: string | null;
  type: ApiKeyType;
  scopes: readonly string[];
  /** Expiry in ms, or null. */
  expiresAt: number | null;
  name: string;
  /** The request defaults of the key over its workspace's (the key's fields win), when either has any. */
  defaults?: RequestDefaults;
  /** The user of a `workspace-user` key and what its roles allow in the key's workspace. */
  user?: KeyUser;
  /** The workspace's effective `log_bodies` setting: request and response bodies go into the request log. */
  logBodies?: boolean;
  /** Set on the facts a console session acts with (`id` is the session's id; never in `apiKeysByHash`). */
  session?: boolean;
  /** Set on the facts a JWT acts with (`id` is its subject; never in `apiKeysByHash`). */
  jwt?: boolean;
  /** A JWT's subject (`sub`, else `email`): the user its requests are attributed to in logs. */
  subject?: string;
}

/**
 * The compiled, versioned view of the control plane that the request path reads (never SQL). Every
 * part is a named section (`core-sections.ts` names the core's; capabilities add theirs: rate-limit
 * policies, guardrails, ...); the top-level maps are the core sections' flat maps, read with one `get`.
 * A snapshot is never changed once published: a reload swaps in a new one.
 */
export interface RuntimeSnapshot {
  readonly version: number;
  readonly apiKeysByHash: ReadonlyMap<string, AuthKey>;
  readonly workspacesById: ReadonlyMap<string, Workspace>;
  /** Key `${organisationId}:${slug}`. */
  readonly workspacesBySlug: ReadonlyMap<string, Workspace>;
  /** Stored configs; key `${workspaceId}:${id}` and `${workspaceId}:${slug}`. */
  readonly configs: ReadonlyMap<string, CompiledConfig>;
  /** Key `${workspaceId}:${id}` and `${workspaceId}:${slug}`. */
  readonly virtualKeys: ReadonlyMap<string, ResolvedVirtualKey>;
  /** Default workspace of each organisation (organisation id → workspace id of that organisation). */
  readonly defaultWorkspaceByOrganisation: ReadonlyMap<string, string>;
  /** The organisation the bootstrap created (first start); never a fallback for a request's tenant. */
  readonly defaultOrganisationId: string;
  /** The bootstrap organisation's default workspace; never a fallback for a request's tenant. */
  readonly defaultWorkspaceId: string;
  /** Every section's value by name (the core's and the capabilities'). */
  readonly sections: ReadonlyMap<string, unknown>;
}

/** Reads a capability's section, typed by the caller. */
export function sectionOf<T>(snapshot: RuntimeSnapshot, name: string): T | undefined {
  return snapshot.sections.get(name) as T | undefined;
}
