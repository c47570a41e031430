import type { RequestLogsTable as RequestLogRow } from '../schema.js';

/** The request log's columns in the order its INSERT binds them. */
export const COLUMNS = [
  'id', 'organisation_id', 'workspace_id', 'api_key_id', 'user_id', 'trace_id', 'endpoint', 'provider', 'model', 'status', 'stream', 'cache_status', 'config_id',
  'prompt_id', 'target_path', 'retry_count', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost', 'latency_ms', 'metadata', 'error', 'hook_results', 'created_at',
  'unit_prices', 'cached_tokens', 'cache_write_tokens', 'reasoning_tokens',
  'attempts', 'ttfb_ms', 'request_body', 'response_body', 'rolled_up',
] as const satisfies ReadonlyArray<keyof RequestLogRow>;

/**
 * A row's values in `COLUMNS` order. A column the row leaves out is null, except the token details (NOT
 * NULL, default 0, as in migration 0024) and `rolled_up` (1: the batch's rollups are written with it).
 * Written out by name rather than read with `row[column]` in a loop: a computed key over 34 columns is a
 * megamorphic keyed load per value (it showed in profiles of the request log); a test checks the order
 * against `COLUMNS` and the defaults.
 */
export function rowValues(r: RequestLogRow, out: unknown[], at: number): void {
  out[at] = r.id ?? null; out[at + 1] = r.organisation_id ?? null; out[at + 2] = r.workspace_id ?? null; out[at + 3] = r.api_key_id ?? null; out[at + 4] = r.user_id ?? null;
  out[at + 5] = r.trace_id ?? null; out[at + 6] = r.endpoint ?? null; out[at + 7] = r.provider ?? null; out[at + 8] = r.model ?? null; out[at + 9] = r.status ?? null;
  out[at + 10] = r.stream ?? null; out[at + 11] = r.cache_status ?? null; out[at + 12] = r.config_id ?? null; out[at + 13] = r.prompt_id ?? null;
  out[at + 14] = r.target_path ?? null; out[at + 15] = r.retry_count ?? null; out[at + 16] = r.prompt_tokens ?? null; out[at + 17] = r.completion_tokens ?? null;
  out[at + 18] = r.total_tokens ?? null; out[at + 19] = r.cost ?? null; out[at + 20] = r.latency_ms ?? null; out[at + 21] = r.metadata ?? null; out[at + 22] = r.error ?? null;
  out[at + 23] = r.hook_results ?? null; out[at + 24] = r.created_at ?? null; out[at + 25] = r.unit_prices ?? null; out[at + 26] = r.cached_tokens ?? 0;
  out[at + 27] = r.cache_write_tokens ?? 0; out[at + 28] = r.reasoning_tokens ?? 0; out[at + 29] = r.attempts ?? null; out[at + 30] = r.ttfb_ms ?? null;
  out[at + 31] = r.request_body ?? null; out[at + 32] = r.response_body ?? null; out[at + 33] = r.rolled_up ?? 1;
}

/**
 * The row whose `rowValues` are `v` from `at` (the request log's thread reads its packed rows back with it).
 * One literal, so every row it makes has the same shape; a test checks it against `rowValues` and `COLUMNS`.
 */
export function rowFromValues(v: readonly unknown[], at: number): RequestLogRow {
  type R = RequestLogRow;
  return {
    id: v[at] as R['id'], organisation_id: v[at + 1] as R['organisation_id'], workspace_id: v[at + 2] as R['workspace_id'], api_key_id: v[at + 3] as R['api_key_id'],
    user_id: v[at + 4] as R['user_id'], trace_id: v[at + 5] as R['trace_id'], endpoint: v[at + 6] as R['endpoint'], provider: v[at + 7] as R['provider'], model: v[at + 8] as R['model'],
    status: v[at + 9] as R['status'], stream: v[at + 10] as R['stream'], cache_status: v[at + 11] as R['cache_status'], config_id: v[at + 12] as R['config_id'],
    prompt_id: v[at + 13] as R['prompt_id'], target_path: v[at + 14] as R['target_path'], retry_count: v[at + 15] as R['retry_count'], prompt_tokens: v[at + 16] as R['prompt_tokens'],
    completion_tokens: v[at + 17] as R['completion_tokens'], total_tokens: v[at + 18] as R['total_tokens'], cost: v[at + 19] as R['cost'], latency_ms: v[at + 20] as R['latency_ms'],
    metadata: v[at + 21] as R['metadata'], error: v[at + 22] as R['error'], hook_results: v[at + 23] as R['hook_results'], created_at: v[at + 24] as R['created_at'],
    unit_prices: v[at + 25] as R['unit_prices'], cached_tokens: v[at + 26] as R['cached_tokens'], cache_write_tokens: v[at + 27] as R['cache_write_tokens'],
    reasoning_tokens: v[at + 28] as R['reasoning_tokens'], attempts: v[at + 29] as R['attempts'], ttfb_ms: v[at + 30] as R['ttfb_ms'], request_body: v[at + 31] as R['request_body'],
    response_body: v[at + 32] as R['response_body'], rolled_up: v[at + 33] as R['rolled_up'],
  };
}
