import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ProviderTarget } from '../provider.js';

/** The public API origin, used when the target sets no `custom_host`. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** The API version header value sent unless the config sets `anthropic_version`. */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * The base URL of a target without a trailing slash or `/v1` (a `custom_host` may be given either
 * way: `http://host:1234` and `http://host:1234/v1` name the same server).
 */
export function anthropicBaseUrl(target: ProviderTarget): string {
  const raw = target.customHost ?? ANTHROPIC_BASE_URL;
  return raw.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** `{base}/v1/<path>` for a target, e.g. `anthropicUrl(target, '/messages')`. */
export function anthropicUrl(target: ProviderTarget, path: string): string {
  return `${anthropicBaseUrl(target)}/v1${path.startsWith('/') ? path : `/${path}`}`;
}

/**
 * Headers of a call: forwarded headers, `x-api-key`, `anthropic-version` (config `anthropic_version`
 * overrides it) and `anthropic-beta` from config `anthropic_beta` (a string or an array of strings).
 * Throws `invalid_request` (param `api_key`) when the target has no key.
 * @see https://docs.anthropic.com/en/api/overview#authentication
 */
export function anthropicHeaders(target: ProviderTarget): Record<string, string> {
  if (!target.apiKey) {
    throw new GatewayError(
      'invalid_request',
      "Provider 'anthropic' needs an API key: set config 'api_key' or send 'Authorization: Bearer <key>'.",
      {
        param: 'api_key',
      },
    );
  }
  const headers: Record<string, string> = {
    ...target.forwardHeaders,
    'content-type': 'application/json',
    'x-api-key': target.apiKey,
    'anthropic-version': typeof target.config.anthropic_version === 'string' ? target.config.anthropic_version : ANTHROPIC_VERSION,
  };
  const beta = target.config.anthropic_beta;
  if (typeof beta === 'string' && beta) headers['anthropic-beta'] = beta;
  else if (Array.isArray(beta) && beta.length) headers['anthropic-beta'] = beta.filter((b) => typeof b === 'string').join(',');
  return headers;
}
