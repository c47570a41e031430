import { GatewayError } from '../../foundation/errors/gateway-error.js';

/** Socket-level error codes of a database that cannot be reached (refused, reset, unroutable, unresolvable). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Messages pg gives a connection that died or could not be made (no SQLSTATE on these). */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection terminated due to connection timeout)/;

/**
 * True when a store error means "the database is unreachable right now" rather than "this query is
 * wrong": PostgreSQL's 57P01/57P02/57P03 (admin or crash shutdown, cannot connect now) and class 08
 * (connection exception), a socket error, a terminated or timed-out pg connection, and SQLite's
 * busy/locked database. Such errors answer 503 `store_unavailable` and may be retried.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (err instanceof GatewayError) return err.code === 'store_unavailable';
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08')) return true;
  if (NETWORK_CODES.has(code) || code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  if (err instanceof AggregateError) return err.errors.some(isStoreUnavailable);
  return typeof e?.message === 'string' && PG_CONNECTION_MESSAGES.test(e.message);
}

/**
 * The one place a store error becomes a GatewayError: an unreachable database is 503
 * `store_unavailable` with `Retry-After: 1` (the cause kept for logs); any other error is returned unchanged for the
 * caller to interpret (a unique violation is a 409 there, a bug stays a 500).
 */
export function toStoreError(err: unknown): unknown {
  if (err instanceof GatewayError || !isStoreUnavailable(err)) return err;
  return new GatewayError('store_unavailable', undefined, { cause: err, headers: { 'retry-after': '1' } });
}
