import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ProviderTarget } from '../provider.js';

/**
 * Auth header of a Gemini API call: the key travels as `x-goog-api-key`.
 * @see https://ai.google.dev/gemini-api/docs/api-key
 */
export function googleAuthHeaders(target: ProviderTarget): Record<string, string> {
  if (!target.apiKey) {
    throw new GatewayError(
      'invalid_request',
      "Provider 'google' needs an API key: send it as 'Authorization: Bearer <key>' or config 'api_key'.",
      {
        param: 'api_key',
      },
    );
  }
  return { 'x-goog-api-key': target.apiKey };
}
