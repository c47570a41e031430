import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import { pickRetryHeaders, statusType } from '../openai-compatible/map-openai-error.js';

/**
 * Maps a Cohere error answer (`{"id"?, "message": "..."}`) to a GatewayError keeping Cohere's status and
 * message; the type comes from the status (Cohere sends none), `retry-after` is kept.
 * @see https://docs.cohere.com/reference/errors
 */
export function mapCohereError(status: number, body: string, headers: Record<string, string | string[] | undefined> = {}): GatewayError {
  const parsed = tryParseJson(body);
  const message =
    (isObject(parsed) && typeof parsed.message === 'string' && parsed.message) ||
    (body && body.length < 500 ? body : '') ||
    `Cohere answered with status ${status}.`;
  return new GatewayError('provider_error', message, {
    status,
    type: statusType(status),
    provider: 'cohere',
    publicCode: null,
    headers: pickRetryHeaders(headers),
  });
}
