import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { SecretBoxError } from '../../../foundation/lib/secret-box.js';
import { holds, type Principal } from '../../../kernel/principal.js';
import { rotateApiKey, takePendingKey, type ApiKeyRecord } from '../../../infra/store/repos/api-keys.js';
import { defineAction, type ResourceContext } from '../../resource/define-resource.js';
import { iso } from '../../../identity/paging.js';
import { RevealApiKey, RevealedApiKey, RotateApiKey, RotatedApiKey } from './api-key-schemas.js';
import { assertTypeWithinReach, grantScopes } from './grant-scopes.js';
import { keyHint, newKeyValue } from './key-value.js';
import { presentKey, reread, writeScope } from './present-key.js';
import { transitionMs, type RotationPolicy } from './rotation-schedule.js';

/**
 * Handing a caller another key's value is taking that key over: allowed only to a principal that could
 * have created it. The instance operator's key is never taken over (only it rotates itself): its value
 * creates organisations, which no key of its organisation could otherwise.
 */
function assertMayTakeOver(principal: Principal, k: ApiKeyRecord): void {
  if (k.id === principal.keyId) return;
  if (k.instance_operator) throw new GatewayError('forbidden', "The instance operator's key is rotated and revealed only with itself.");
  assertTypeWithinReach(principal, k.type);
  grantScopes(principal, k.type, k.scopes);
}

function openTransition(k: ApiKeyRecord, now: number): GatewayError | undefined {
  const until = k.key_transition_expires_at;
  if (until == null || until <= now) return undefined;
  return new GatewayError(
    'conflict',
    `API key '${k.id}' is in a rotation transition until ${iso(until)}: at most two values are live, rotate again after it ends.`,
    { param: 'id' },
  );
}

/**
 * `POST /v1/api-keys/{id}/rotate {key_transition_period_ms?}`: a new value for the same key; the
 * previous one keeps working until `key_transition_expires_at` (the request's period, else the key's
 * policy's, else 30 minutes; at least 30 minutes). 409 while an earlier rotation's transition is open.
 */
export const rotateAction = defineAction<ApiKeyRecord, typeof RotateApiKey, typeof RotatedApiKey>({
  verb: 'rotate',
  method: 'POST',
  suffix: '/rotate',
  permission: 'api_keys.rotate',
  write: true,
  summary: 'Rotate a gateway API key (the previous value works until key_transition_expires_at)',
  body: RotateApiKey,
  answer: RotatedApiKey,
  async run(ctx, k, body) {
    assertMayTakeOver(ctx.principal, k);
    const busy = openTransition(k, ctx.now);
    if (busy) throw busy;
    const transition = transitionMs(k.rotation_policy as RotationPolicy | null, body?.key_transition_period_ms);
    const prefix = ctx.deps.settings.apiKeyPrefix;
    const value = newKeyValue(prefix);
    const rotation = {
      keyHash: sha256Hex(value),
      keyHint: keyHint(value, prefix),
      transitionEndsAt: ctx.now + transition,
      pendingCiphertext: null,
    };
    if (!(await rotateApiKey(ctx.db, writeScope(ctx), k.id, rotation, ctx.now))) {
      // Another rotation committed between the read and this write.
      throw (
        openTransition(await reread(ctx, k.id), ctx.now) ??
        new GatewayError('conflict', `API key '${k.id}' changed during the rotation; try again.`, { param: 'id' })
      );
    }
    const record = await reread(ctx, k.id);
    return {
      record,
      answer: { ...presentKey(record), key: value },
      details: { key_transition_period_ms: transition, rotation_mode: 'manual' },
    };
  },
});

/**
 * Whether `principal` is the user of user key `k`. Until users exist, a user key is its own user's
 * only credential: the key itself (its current or, during a transition, previous value).
 */
/** The key is the principal's own, or belongs to the principal's user. */
function isOwnUserKey(principal: Principal, k: ApiKeyRecord): boolean {
  return principal.keyId === k.id || (principal.userId !== null && k.user_id === principal.userId);
}

function assertMayReveal(ctx: ResourceContext, k: ApiKeyRecord): void {
  if (k.type === 'workspace-user') {
    if (!isOwnUserKey(ctx.principal, k)) throw new GatewayError('forbidden', "A user key's pending value is shown to its own user only.");
    return;
  }
  if (!holds(ctx.principal, 'api_keys.write'))
    throw new GatewayError('forbidden', "This API key lacks the 'api_keys.write' scope (revealing a service key's value).");
  assertMayTakeOver(ctx.principal, k);
}

/**
 * `POST /v1/api-keys/{id}/reveal`: the value a scheduled rotation (or an automatic creation) made,
 * shown once. 404 when the key has none, 409 once it was shown. Needs `api_keys.write`. A user key's
 * value is shown to its user (their session or one of their keys), a service key's to a principal
 * that could have created it.
 */
export const revealAction = defineAction<ApiKeyRecord, typeof RevealApiKey, typeof RevealedApiKey>({
  verb: 'reveal',
  method: 'POST',
  suffix: '/reveal',
  // Taking a key's value is acting on the key (every role holds it for its own user keys; a service
  // key's reveal needs it anyway).
  permission: 'api_keys.write',
  write: true,
  summary: 'Show, once, the value of a key made by a scheduled rotation or an automatic creation',
  body: RevealApiKey,
  answer: RevealedApiKey,
  async run(ctx, k) {
    assertMayReveal(ctx, k);
    const taken = await takePendingKey(ctx.db, writeScope(ctx), k.id, ctx.now);
    if ('none' in taken) throw new GatewayError('not_found', `API key '${k.id}' has no value waiting to be revealed.`, { param: 'id' });
    if ('revealedAt' in taken)
      throw new GatewayError(
        'conflict',
        `The value of API key '${k.id}' was already revealed at ${iso(taken.revealedAt)}; it is shown once.`,
        { param: 'id' },
      );
    let value: string;
    try {
      value = ctx.deps.secrets.decrypt(taken.ciphertext, k.id);
    } catch (err) {
      // Rolls the reveal back: the value stays pending for when the right key is configured.
      if (err instanceof SecretBoxError) throw new GatewayError('internal_error', `The pending value cannot be opened: ${err.message}`);
      throw err;
    }
    return {
      answer: { id: k.id, object: 'api_key' as const, key: value, key_transition_expires_at: iso(k.key_transition_expires_at) },
      details: { creation_mode: k.creation_mode ?? 'api' },
    };
  },
});
