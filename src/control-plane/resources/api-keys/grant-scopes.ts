import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { covers, isScope, type Scope } from '../../../kernel/permissions.js';
import { DEFAULT_SCOPES, type KeyType, type Principal } from '../../../kernel/principal.js';

/**
 * Checks the scopes a principal gives a key (control-plane.md §3): each must be a catalogued scope
 * (400 naming `scopes`) that the principal holds itself (403 naming it). A key created without scopes
 * acts with its type's defaults, which the principal must hold too. Returns the scopes to store.
 */
export function grantScopes(principal: Principal, keyType: KeyType, requested: readonly string[] | undefined): string[] {
  const scopes = requested ?? [];
  for (const s of scopes)
    if (!isScope(s)) throw new GatewayError('invalid_request', `Unknown scope '${s}' (see docs/permissions.md).`, { param: 'scopes' });
  const effective: readonly Scope[] = scopes.length ? scopes.filter(isScope) : DEFAULT_SCOPES[keyType];
  for (const s of effective) {
    if (!covers(principal.scopes, s)) {
      const why = scopes.length ? '' : ` (the default scopes of a ${keyType} key)`;
      throw new GatewayError('forbidden', `This API key cannot grant the '${s}' scope${why}: it does not hold it.`, { param: 'scopes' });
    }
  }
  return [...scopes];
}

const TYPE_RANK: Readonly<Record<KeyType, number>> = { 'workspace-user': 0, 'workspace-service': 1, 'organisation-service': 2 };

/**
 * A principal creates (or takes over by rotating) only keys no broader than its own key:
 * `workspace-user` < `workspace-service` < `organisation-service` (403 naming `type`).
 */
export function assertTypeWithinReach(principal: Principal, keyType: KeyType): void {
  if (TYPE_RANK[keyType] > TYPE_RANK[principal.keyType]) {
    throw new GatewayError(
      'forbidden',
      `A ${principal.keyType} key cannot act on ${keyType} keys: a key creates or rotates only keys no broader than itself.`,
      { param: 'type' },
    );
  }
}
