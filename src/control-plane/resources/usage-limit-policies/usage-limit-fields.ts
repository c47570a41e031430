import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { checkPolicyKeys } from '../../../features/limits/policy-keys.js';
import { utcMidnight } from '../../../features/limits/usage-window.js';
import type { UsageLimitPolicy, UsageLimitPolicyPatch } from '../../../infra/store/repos/usage-limit-policies.js';

/** The body fields of a create or update that need more than their schema. */
export interface UsageLimitFields {
  credit_limit?: number;
  alert_threshold?: number | null;
  periodic_reset?: 'weekly' | 'monthly' | null;
  periodic_reset_days?: number | null;
  next_usage_reset_at?: string | null;
  conditions?: Array<{ key: string; value: string }>;
  group_by?: Array<{ key: string }>;
}

const bad = (param: string, message: string) => new GatewayError('invalid_request', `${param}: ${message}`, { param });

/** `next_usage_reset_at` as 00:00:00 UTC of its day (ms), null when cleared; 400 when it is no date. */
function resetAnchor(value: string | null | undefined, at: string): number | null | undefined {
  if (value === undefined || value === null) return value;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw bad(`${at}.next_usage_reset_at`, `'${value}' is not an ISO 8601 date or date-time.`);
  return utcMidnight(ms);
}

/**
 * Checks a create or update against the policy it produces (`current`: the stored one, for updates)
 * and returns the patch to store: both reset kinds at once is 400 naming both; an update setting one
 * clears the other; `alert_threshold` must stay below `credit_limit`; condition and group_by keys as
 * for rate limits; `next_usage_reset_at` normalised to UTC midnight. Errors name the fields under
 * `at` (`body`, or `body.usage_limits[2]` for an inline limit).
 */
export function usageLimitPatch(body: UsageLimitFields, current?: UsageLimitPolicy, at = 'body'): UsageLimitPolicyPatch {
  const setsReset = body.periodic_reset !== undefined && body.periodic_reset !== null;
  const setsDays = body.periodic_reset_days !== undefined && body.periodic_reset_days !== null;
  if (setsReset && setsDays) {
    throw new GatewayError(
      'invalid_request',
      `${at}.periodic_reset and ${at}.periodic_reset_days are mutually exclusive: give one of them.`,
      { param: `${at}.periodic_reset` },
    );
  }
  checkPolicyKeys(body.conditions, body.group_by);
  const patch: UsageLimitPolicyPatch = {};
  if (body.credit_limit !== undefined) patch.credit_limit = body.credit_limit;
  if (body.alert_threshold !== undefined) patch.alert_threshold = body.alert_threshold;
  if (body.periodic_reset !== undefined) patch.periodic_reset = body.periodic_reset;
  if (body.periodic_reset_days !== undefined) patch.periodic_reset_days = body.periodic_reset_days;
  if (setsReset) patch.periodic_reset_days = null;
  if (setsDays) patch.periodic_reset = null;
  const anchor = resetAnchor(body.next_usage_reset_at, at);
  if (anchor !== undefined) patch.next_usage_reset_at = anchor;
  if (body.conditions !== undefined) patch.conditions = body.conditions;
  if (body.group_by !== undefined) patch.group_by = body.group_by;
  const limit = patch.credit_limit ?? current?.credit_limit ?? 0;
  const threshold = patch.alert_threshold !== undefined ? patch.alert_threshold : (current?.alert_threshold ?? null);
  if (threshold !== null && threshold >= limit) {
    throw bad(`${at}.alert_threshold`, `must be less than credit_limit (${limit}); got ${threshold}.`);
  }
  return patch;
}
