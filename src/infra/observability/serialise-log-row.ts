import { REDACTED, redactSecrets } from '../../foundation/lib/redact-secrets.js';
import type { RequestLogRow } from '../store/repos/request-logs.js';

/** One attempt of a route as the routing engine records it (`RouteTrace.attempts`). */
export interface LogAttempt {
  readonly path: string;
  readonly provider: string;
  readonly status: number;
  /** Duration of the attempt, ms (fractional). */
  readonly ms: number;
}

/**
 * A request-log row as the hot path queues it: `attempts` is the routing engine's own array and the
 * bodies are the request's and answer's values (undefined or null: not logged). They are serialised
 * only when the row's batch is written; a row already serialised (strings) passes unchanged.
 */
export type QueuedLogRow = Omit<RequestLogRow, 'attempts' | 'request_body' | 'response_body'> & {
  attempts?: string | readonly LogAttempt[] | null;
  request_body?: unknown;
  response_body?: unknown;
};

/** Longest body kept, in characters; a longer one is cut and ends with `TRUNCATED`. */
export const MAX_BODY_CHARS = 64 * 1024;
/** Appended to a body cut at `MAX_BODY_CHARS`. */
export const TRUNCATED = '…[truncated]';

/** Members whose string value is a credential, whatever it looks like (an echoed header, a tool's key). */
const SECRET_MEMBER =
  /^(authorization|proxy-authorization|x-api-key|x-gateway-api-key|api[-_]?key|apikey|client_secret|secret|password|access_token|refresh_token|id_token|token)$/i;

function hideSecretMembers(key: string, value: unknown): unknown {
  return typeof value === 'string' && SECRET_MEMBER.test(key) ? REDACTED : value;
}

/**
 * A body as stored: JSON with credential-named members (`authorization`, `api_key`, `password`, …)
 * replaced by `[REDACTED]`, then the known secret shapes redacted (`redactSecrets`: bearer tokens,
 * `sk-…`, the gateway's key prefix …), cut at `MAX_BODY_CHARS`. Null when there is no body.
 */
export function serialiseBody(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  const text = redactSecrets(JSON.stringify(body, hideSecretMembers) ?? 'null');
  return text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS) + TRUNCATED : text;
}

/** The attempts as stored: `[{target_path, provider, status, latency_ms}]`. */
function serialiseAttempts(attempts: QueuedLogRow['attempts']): string | null {
  if (attempts === undefined || attempts === null || typeof attempts === 'string') return attempts ?? null;
  return JSON.stringify(
    attempts.map((a) => ({ target_path: a.path, provider: a.provider, status: a.status, latency_ms: Math.round(a.ms) })),
  );
}

/** The row to insert: attempts and bodies serialised (off the request path, in the writer's batch). */
export function serialiseLogRow(row: QueuedLogRow): RequestLogRow {
  return {
    ...row,
    attempts: serialiseAttempts(row.attempts),
    request_body: serialiseBody(row.request_body),
    response_body: serialiseBody(row.response_body),
  };
}
