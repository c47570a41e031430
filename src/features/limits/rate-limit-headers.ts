import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { CompiledPolicy } from './compiled-policy.js';

/** A matched policy with its counter's reading for this request. */
export interface PolicyReading {
  policy: CompiledPolicy;
  count: number;
  resetAt: number;
}

const PER: Record<CompiledPolicy['unit'], string> = { rpm: 'minute', rph: 'hour', rpd: 'day', rpw: 'week' };

function remaining(r: PolicyReading): number {
  return Math.max(0, r.policy.value - r.count);
}

/** Whole seconds until the reading's window resets (at least 1). */
export function secondsToReset(r: PolicyReading, now: number): number {
  return Math.max(1, Math.ceil((r.resetAt - now) / 1000));
}

/**
 * The rate-limit headers naming one policy: `x-ratelimit-policy` (its id), `x-ratelimit-limit` (its
 * value), `x-ratelimit-remaining` (requests or tokens left in the window), `x-ratelimit-reset`
 * (seconds until the window resets).
 */
export function rateLimitHeaders(r: PolicyReading, now: number): Record<string, string> {
  return {
    'x-ratelimit-policy': r.policy.id,
    'x-ratelimit-limit': String(r.policy.value),
    'x-ratelimit-remaining': String(remaining(r)),
    'x-ratelimit-reset': String(secondsToReset(r, now)),
  };
}

/** The tightest policy: least remaining, then the smaller limit, then the later reset. */
export function tightest(readings: readonly PolicyReading[]): PolicyReading {
  return readings.reduce((best, r) => {
    const d = remaining(r) - remaining(best) || r.policy.value - best.policy.value || best.resetAt - r.resetAt;
    return d < 0 ? r : best;
  });
}

/** Whether a reading taken on a refused admission is one of the policies that refused. */
export function refuses(r: PolicyReading): boolean {
  return r.policy.type === 'requests' ? r.count + 1 > r.policy.value : r.count >= r.policy.value;
}

/**
 * The 429 `rate_limit_exceeded` for a refused request. Among the refusing policies it names the one
 * that resets last (the request cannot pass before then): `Retry-After` and the rate-limit headers.
 */
export function refusal(readings: readonly PolicyReading[], now: number): GatewayError {
  const failing = readings.filter(refuses);
  const r = (failing.length ? failing : readings).reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
  const wait = secondsToReset(r, now);
  const p = r.policy;
  const what = p.type === 'requests' ? 'requests' : 'tokens';
  return new GatewayError(
    'rate_limit_exceeded',
    `Rate limit exceeded: policy ${p.id} allows ${p.value} ${what} per ${PER[p.unit]}. Retry after ${wait} s.`,
    {
      headers: { 'retry-after': String(wait), ...rateLimitHeaders(r, now) },
    },
  );
}
