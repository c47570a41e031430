import type { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import { mapAnthropicError } from '../anthropic/anthropic-error.js';
import { mapGoogleError } from '../google/google-error.js';

/**
 * Maps a Vertex AI error answer. Vertex itself (auth, quota, Gemini models) answers with Google
 * `{"error": {code, message, status}}` bodies; Anthropic models behind `rawPredict` answer with Anthropic
 * `{"type": "error", "error": {type, message}}` bodies, recognised by their shape. Reuses the google and
 * anthropic error mappers.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/api-errors
 * @see https://docs.anthropic.com/en/api/errors
 */
export function mapVertexError(
  provider: string,
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined> = {},
): GatewayError {
  const parsed = tryParseJson(body);
  if (isObject(parsed) && parsed.type === 'error') return mapAnthropicError(provider, status, body, headers);
  return mapGoogleError(provider, status, body, headers);
}
