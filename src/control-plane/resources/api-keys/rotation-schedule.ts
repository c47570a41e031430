import { GatewayError } from '../../../foundation/errors/gateway-error.js';

/** The periods a key's `rotation_policy.rotation_period` may name. */
export type RotationPeriod = 'weekly' | 'monthly';

/** The transition of a rotation when neither the request nor the key's policy sets one: 30 minutes. */
export const DEFAULT_TRANSITION_MS = 30 * 60 * 1000;

/** A key's `rotation_policy`, as stored (checked by the API key schemas). */
export interface RotationPolicy {
  rotation_period?: RotationPeriod;
  next_rotation_at?: string;
  key_transition_period_ms?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The first scheduled rotation time strictly after `after` (ms): weekly → the next Monday 00:00 UTC,
 * monthly → the next 1st of a month 00:00 UTC.
 */
export function nextBoundary(period: RotationPeriod, after: number): number {
  const d = new Date(after);
  if (period === 'monthly') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  // getUTCDay: Sunday 0, Monday 1. Days until the next Monday, 7 when today is Monday.
  const days = (8 - d.getUTCDay()) % 7 || 7;
  return midnight + days * DAY_MS;
}

/**
 * When the schedule first rotates a key with this policy, set at `now`: its `next_rotation_at` (which
 * must be in the future: 400 naming `rotation_policy.next_rotation_at`), else the period's next
 * boundary, else never (null).
 */
export function firstRotationAt(policy: RotationPolicy | null | undefined, now: number): number | null {
  if (!policy) return null;
  if (policy.next_rotation_at !== undefined) {
    const at = Date.parse(policy.next_rotation_at);
    if (Number.isNaN(at) || at <= now)
      throw new GatewayError('invalid_request', 'rotation_policy.next_rotation_at must be a time in the future.', {
        param: 'rotation_policy.next_rotation_at',
      });
    return at;
  }
  return policy.rotation_period ? nextBoundary(policy.rotation_period, now) : null;
}

/** The rotation after a scheduled one made at `now`: the period's next boundary, or none for a one-off `next_rotation_at`. */
export function followingRotationAt(policy: RotationPolicy | null | undefined, now: number): number | null {
  return policy?.rotation_period ? nextBoundary(policy.rotation_period, now) : null;
}

/** The transition of a rotation: the request's, else the policy's, else 30 minutes. */
export function transitionMs(policy: RotationPolicy | null | undefined, requested?: number): number {
  return requested ?? policy?.key_transition_period_ms ?? DEFAULT_TRANSITION_MS;
}
