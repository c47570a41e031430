import type { GatewayError } from '../foundation/errors/gateway-error.js';
import type { RetrySettings } from './compiled-config.js';

const MAX_BACKOFF_MS = 10_000;
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * How long to wait before retry number `attempt` (0-based): exponential backoff with jitter, or the
 * provider's `retry-after-ms` / `Retry-After` (seconds or HTTP date) when `use_retry_after_headers`
 * is on, capped by the request timeout (decisions.md).
 */
export function retryDelayMs(
  attempt: number,
  err: GatewayError,
  retry: RetrySettings,
  baseMs: number,
  timeoutMs: number | null,
  now: number,
  random: () => number = Math.random,
): number {
  if (retry.useRetryAfter) {
    const hinted = retryAfterMs(err.headers ?? {}, now);
    if (hinted !== undefined) return Math.min(hinted, timeoutMs ?? MAX_RETRY_AFTER_MS, MAX_RETRY_AFTER_MS);
  }
  const exp = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** attempt);
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** Parses `retry-after-ms` or `retry-after` (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(headers: Record<string, string>, now: number): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const ra = headers['retry-after'];
  if (ra === undefined) return undefined;
  const v = ra.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Whether a failure should be retried under the settings. */
export function shouldRetry(err: GatewayError, retry: RetrySettings | null, attempt: number): boolean {
  return retry !== null && attempt < retry.attempts && retry.onStatusCodes.has(err.status);
}
