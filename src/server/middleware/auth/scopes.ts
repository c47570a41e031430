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

/** Whether the key holds the scope (its own scopes, or its type's defaults when it has none). */
export function hasScope(key: AuthKey, scope: string): boolean {
  const scopes = key.scopes.length ? key.scopes : DEFAULT_SCOPES[key.type];
  if (scopes.includes('*') || scopes.includes(scope)) return true;
  const dot = scope.indexOf('.');
  return dot > 0 && scopes.includes(`${scope.slice(0, dot)}.*`);
}
