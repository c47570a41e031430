import type { AuthKey } from '../../../runtime/snapshot.js';

/**
 * Scopes a gateway key can hold. A key created without scopes gets its type's defaults.
 * `*` grants everything; `resource.*` grants every action on a resource.
 */
export const DEFAULT_SCOPES: Record<AuthKey['type'], readonly string[]> = {
  'organisation-service': ['*'],
  'workspace-service': ['*'],
  'workspace-user': ['completions.write', 'configs.read', 'prompts.read', 'prompts.render', 'logs.read', 'virtual_keys.read', 'models.read'],
};

/** The scopes a key acts with: its own, or its type's defaults when it has none. */
export function effectiveScopes(key: Pick<AuthKey, 'type' | 'scopes'>): readonly string[] {
  return key.scopes.length ? key.scopes : DEFAULT_SCOPES[key.type];
}

/**
 * Whether the held scopes cover one scope: `*` covers everything; `resource.*` covers that resource's
 * actions and `resource.*` itself; any other scope covers only itself (`configs.read` covers neither
 * `configs.*` nor `*`).
 */
export function scopeCovered(held: readonly string[], wanted: string): boolean {
  if (held.includes('*') || held.includes(wanted)) return true;
  if (wanted === '*') return false;
  const dot = wanted.indexOf('.');
  return dot > 0 && held.includes(`${wanted.slice(0, dot)}.*`);
}

/** The first of `wanted` that `held` does not cover, or undefined when it covers them all. */
export function firstUncoveredScope(held: readonly string[], wanted: readonly string[]): string | undefined {
  return wanted.find((scope) => !scopeCovered(held, scope));
}

/** Whether the key holds the scope (its own scopes, or its type's defaults when it has none). */
export function hasScope(key: AuthKey, scope: string): boolean {
  return scopeCovered(effectiveScopes(key), scope);
}
