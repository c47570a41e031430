import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ProviderTarget } from '../provider.js';

/** Cohere's API host; `custom_host` replaces it. */
export const COHERE_BASE_URL = 'https://api.cohere.com';

/** The base URL of a target: `custom_host` when set, else {@link COHERE_BASE_URL}, without a trailing slash. */
export function cohereBaseUrl(target: ProviderTarget): string {
  return (target.customHost ?? COHERE_BASE_URL).replace(/\/+$/, '');
}

/**
 * Headers of a Cohere call: forwarded headers, JSON content type, `Authorization: Bearer <key>`, and
 * `accept: text/event-stream` for streams. Throws `invalid_request` without a key.
 * @see https://docs.cohere.com/reference/about#authentication
 */
export function cohereHeaders(target: ProviderTarget, stream = false): Record<string, string> {
  if (!target.apiKey) {
    throw new GatewayError(
      'invalid_request',
      "Provider 'cohere' needs an API key: send it as 'Authorization: Bearer <key>' or config 'api_key'.",
      {
        param: 'api_key',
      },
    );
  }
  return {
    ...target.forwardHeaders,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    authorization: `Bearer ${target.apiKey}`,
  };
}
