import type { AuthKey } from '../../../runtime/snapshot.js';
import { isPermission } from '../../../kernel/permissions.js';
import { holds, principalOfKey } from '../../../kernel/principal.js';

export { DEFAULT_SCOPES } from '../../../kernel/principal.js';

/** Whether the key holds the scope (its own scopes, or its type's defaults when it has none). */
export function hasScope(key: AuthKey, scope: string): boolean {
  return isPermission(scope) && holds(principalOfKey(key), scope);
}
