import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';

/**
 * Maps an OpenAI-style error answer (`{"error": {message, type, param, code}}`, or the FastAPI-style
 * `{"detail": "…"}` of Voyage and Jina) to a GatewayError that keeps the provider's status, message, type and code.
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export function mapOpenAIError(
  provider: string,
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined> = {},
): GatewayError {
  const parsed = tryParseJson(body);
  const err = isObject(parsed) && isObject(parsed.error) ? parsed.error : isObject(parsed) ? parsed : undefined;
  const message =
    (err && typeof err.message === 'string' && err.message) ||
    (err && typeof err.detail === 'string' && err.detail) ||
    (typeof parsed === 'string' ? parsed : '') ||
    (body && body.length < 500 ? body : '') ||
    `The provider answered with status ${status}.`;
  const type = err && typeof err.type === 'string' ? err.type : statusType(status);
  const code = err && (typeof err.code === 'string' || typeof err.code === 'number') ? String(err.code) : null;
  const param = err && typeof err.param === 'string' ? err.param : null;
  return new GatewayError('provider_error', message, {
    status,
    type,
    param,
    provider,
    publicCode: code,
    headers: pickRetryHeaders(headers),
  });
}

/** A generic error type for a provider status, when the provider sends none. */
export function statusType(status: number): string {
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'provider_error';
}

/** Keeps the headers a client needs to back off (`retry-after`, `retry-after-ms`). */
export function pickRetryHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const name of ['retry-after', 'retry-after-ms']) {
    const v = headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  return Object.keys(out).length ? out : undefined;
}
