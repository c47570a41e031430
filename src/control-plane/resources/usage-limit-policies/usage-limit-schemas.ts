import { Type } from 'typebox';
import { scheduleOf } from '../../../features/limits/compiled-usage-policy.js';
import { usageWindow } from '../../../features/limits/usage-window.js';
import type { UsageLimitPolicy } from '../../../infra/store/repos/usage-limit-policies.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

/** `cost` (US dollars), `tokens` (total tokens) or `requests`. */
export const LimitType = StringEnum(['cost', 'tokens', 'requests']);
/** A calendar reset: Monday 00:00 UTC or the 1st 00:00 UTC. */
export const Reset = StringEnum(['weekly', 'monthly']);
/** A positive amount of the policy's type. */
export const Amount = Type.Number({ exclusiveMinimum: 0, maximum: 1e15 });
/** A reset every N days. */
export const Days = Type.Integer({ minimum: 1, maximum: 365 });
/** An ISO 8601 date or date-time, normalised to 00:00 UTC of its day. */
export const ResetAt = Type.String({ minLength: 10, maxLength: 40 });
/** The limit's own fields in answers (of a policy and of an inline limit), its current window included. */
export const LimitFieldsAnswer = Type.Object({
  type: LimitType,
  credit_limit: Type.Number(),
  alert_threshold: Nullable(Type.Number()),
  periodic_reset: Nullable(Reset),
  periodic_reset_days: Nullable(Type.Integer()),
  next_usage_reset_at: Nullable(IsoTime),
  last_reset_at: Nullable(IsoTime),
});

/**
 * A policy's limit fields as answers show them. `next_usage_reset_at` is when the current window ends
 * (null: never), `last_reset_at` when it began if that was a reset (null while the first window runs).
 */
export function presentLimitFields(p: UsageLimitPolicy, now: number) {
  const w = usageWindow(scheduleOf(p), now);
  return {
    type: p.type,
    credit_limit: p.credit_limit,
    alert_threshold: p.alert_threshold,
    periodic_reset: p.periodic_reset,
    periodic_reset_days: p.periodic_reset_days,
    next_usage_reset_at: w.resetAt === null ? null : iso(w.resetAt),
    last_reset_at: w.start > p.created_at ? iso(w.start) : null,
  };
}
