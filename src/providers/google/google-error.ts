import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import { pickRetryHeaders, statusType } from '../openai-compatible/map-openai-error.js';

/** The `error` member of a Google API error body, whether sent alone or wrapped in an array. */
function googleErrorOf(parsed: unknown): Record<string, unknown> | undefined {
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  return isObject(first) && isObject(first.error) ? first.error : undefined;
}

/**
 * Maps a Google API error answer (`{"error": {code, message, status, details}}`) to a GatewayError
 * keeping the HTTP status, the message, and the Google status (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, …) as code.
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * @see https://cloud.google.com/apis/design/errors#http_mapping
 */
export function mapGoogleError(
  provider: string,
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined> = {},
): GatewayError {
  const err = googleErrorOf(tryParseJson(body));
  const message =
    (err && typeof err.message === 'string' && err.message) ||
    (body && body.length < 500 ? body : '') ||
    `The provider answered with status ${status}.`;
  return new GatewayError('provider_error', message, {
    status,
    type: statusType(status),
    provider,
    publicCode: err && typeof err.status === 'string' ? err.status : null,
    headers: pickRetryHeaders(headers),
  });
}

/**
 * Turns an `{"error": …}` frame found inside a stream into a GatewayError. The status is the error's
 * `code` when it is an HTTP error status, else 502.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export function googleStreamError(provider: string, frame: unknown): GatewayError | undefined {
  const err = googleErrorOf(frame);
  if (!err) return undefined;
  const code = typeof err.code === 'number' && err.code >= 400 && err.code < 600 ? err.code : 502;
  return new GatewayError('provider_error', typeof err.message === 'string' ? err.message : 'The provider reported an error mid-stream.', {
    provider,
    status: code,
    type: statusType(code),
    publicCode: typeof err.status === 'string' ? err.status : null,
  });
}
