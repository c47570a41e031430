import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { RequestLogFilter } from '../../../infra/store/repos/request-logs.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { UnixOrIsoTime as Time } from '../../../identity/paging.js';

/** Cache statuses a row can have (decisions.md `x-gateway-cache-status`). */
export const CACHE_STATUSES = ['HIT', 'SEMANTIC HIT', 'MISS', 'REFRESH', 'DISABLED'] as const;

/** The filters of `GET /v1/logs`, its export and analytics (control-plane.md §8). */
export const LogFilterQuery = {
  trace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  start_time: Type.Optional(Time),
  end_time: Type.Optional(Time),
  status_code: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
  /** Alias of `status_code` (a guess many users make); both at once must agree. */
  status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: 'Alias of status_code.' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  api_key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  cache_status: Type.Optional(StringEnum(CACHE_STATUSES)),
};

/** `metadata.<key>` query members: a string each (the key is checked by `filterOf`). */
export const METADATA_QUERY = { '^metadata\\.': Type.String({ maxLength: 1024 }) };

const LogFilterObject = Type.Object(LogFilterQuery);
/** A query carrying the log filters (and possibly `metadata.<key>` members). */
export type LogFilterInput = Static<typeof LogFilterObject> & Record<string, unknown>;

/** A metadata key a filter may name: letters, digits and `_ - . :`, at most 128 characters. */
const METADATA_KEY = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Milliseconds of an ISO time or Unix seconds (400 naming the parameter when it is no time). */
export function ms(v: string | number | undefined, param: string): number | undefined {
  if (v === undefined) return undefined;
  const t = typeof v === 'number' ? v * 1000 : Date.parse(v);
  if (Number.isNaN(t)) throw new GatewayError('invalid_request', `querystring.${param} is not a valid time.`, { param });
  return t;
}

/** Options of `filterOf`: defaults of the time range and the retention bound. */
export interface FilterBounds {
  /** Default `start_time` (ms) when the query has none. */
  defaultStart?: number;
  /** Default `end_time` (ms) when the query has none. */
  defaultEnd?: number;
  /** Earliest time rows are kept (retention): a `start_time` before it is 400. */
  retainedSince?: number;
}

/**
 * The repository filter of a query: times parsed, `start_time` after `end_time` 400, a `start_time`
 * older than the retention 400, `metadata.<key>` members with a valid key (else 400 naming the member).
 * Values reach SQL only as bound parameters.
 */
export function filterOf(q: LogFilterInput, bounds: FilterBounds = {}): RequestLogFilter {
  const startTime = ms(q.start_time, 'start_time') ?? bounds.defaultStart;
  const endTime = ms(q.end_time, 'end_time') ?? bounds.defaultEnd;
  if (startTime !== undefined && endTime !== undefined && startTime > endTime)
    throw new GatewayError('invalid_request', 'querystring.start_time is after querystring.end_time.', { param: 'start_time' });
  if (q.start_time !== undefined && bounds.retainedSince !== undefined && startTime! < bounds.retainedSince) {
    throw new GatewayError(
      'invalid_request',
      `querystring.start_time is before the log retention (rows are kept since ${new Date(bounds.retainedSince).toISOString()}).`,
      { param: 'start_time' },
    );
  }
  if (q.status !== undefined && q.status_code !== undefined && q.status !== q.status_code) {
    throw new GatewayError(
      'invalid_request',
      'querystring.status is an alias of querystring.status_code: give one, or the same value in both.',
      { param: 'status' },
    );
  }
  const metadata: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(q)) {
    if (!name.startsWith('metadata.')) continue;
    const key = name.slice('metadata.'.length);
    if (!METADATA_KEY.test(key))
      throw new GatewayError('invalid_request', `querystring.${name}: a metadata key has 1 to 128 letters, digits or '_', '-', '.', ':'.`, {
        param: name,
      });
    if (typeof value !== 'string') throw new GatewayError('invalid_request', `querystring.${name} must be one string.`, { param: name });
    metadata.push([key, value]);
  }
  return {
    traceId: q.trace_id,
    startTime,
    endTime,
    status: q.status_code ?? q.status,
    model: q.model,
    provider: q.provider,
    apiKeyId: q.api_key_id,
    userId: q.user_id,
    cacheStatus: q.cache_status,
    ...(metadata.length ? { metadata } : {}),
  };
}
