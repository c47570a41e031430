import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import { pickRetryHeaders, statusType } from '../openai-compatible/map-openai-error.js';

const STATUS_BY_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * The HTTP status Anthropic documents for an error `type` (used for `error` events inside a stream,
 * which carry no status of their own). Unknown types → 502.
 * @see https://docs.anthropic.com/en/api/errors
 */
export function anthropicErrorStatus(type: unknown): number {
  return (typeof type === 'string' && STATUS_BY_TYPE[type]) || 502;
}

/**
 * Maps an Anthropic error answer (`{"type":"error","error":{"type","message"},"request_id"}`) to a
 * `provider_error` GatewayError that keeps the provider's status, message and error type. A body that is
 * not JSON keeps its text as the message. `retry-after` headers are kept for clients that back off.
 * @see https://docs.anthropic.com/en/api/errors
 */
export function mapAnthropicError(
  provider: string,
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined> = {},
): GatewayError {
  const parsed = tryParseJson(body);
  const err = isObject(parsed) && isObject(parsed.error) ? parsed.error : undefined;
  const message =
    (err && typeof err.message === 'string' && err.message) ||
    (parsed === undefined && body && body.length < 500 ? body : '') ||
    `The provider answered with status ${status}.`;
  return new GatewayError('provider_error', message, {
    status,
    type: err && typeof err.type === 'string' ? err.type : statusType(status),
    provider,
    publicCode: null,
    headers: pickRetryHeaders(headers),
  });
}

/** A GatewayError for an `error` event received inside a stream; the status comes from the error type. */
export function mapAnthropicStreamError(provider: string, data: unknown): GatewayError {
  const err = isObject(data) && isObject(data.error) ? data.error : undefined;
  const type = err && typeof err.type === 'string' ? err.type : 'api_error';
  const message = err && typeof err.message === 'string' && err.message ? err.message : 'The provider reported an error mid-stream.';
  return new GatewayError('provider_error', message, { status: anthropicErrorStatus(type), type, provider, publicCode: null });
}
