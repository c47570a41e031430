import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { AuthKey, RequestDefaults } from '../../runtime/snapshot.js';

/**
 * The defaults that apply to a request authenticated by `key`: the key's own over its workspace's,
 * field by field (config, metadata keys, override rule; the key's win), merged once when the runtime
 * snapshot loads the key, so a request only reads them.
 */
export function requestDefaults(key: AuthKey | undefined): RequestDefaults | undefined {
  return key?.defaults;
}

/**
 * Applies `defaults` to the gateway headers of a request, in place: without `x-gateway-config` the
 * default config (a stored config id) routes it; an explicit `x-gateway-config` is refused with 403
 * `forbidden` when the defaults set `allowConfigOverride: false`; default metadata goes under the
 * request's `x-gateway-metadata` (the request's keys win).
 */
export function applyRequestDefaults<H extends { config?: string; metadata: Record<string, string> }>(
  gh: H,
  defaults: RequestDefaults | undefined,
): H {
  if (!defaults) return gh;
  if (defaults.configId !== undefined) {
    if (gh.config === undefined) gh.config = defaults.configId;
    else if (!defaults.allowConfigOverride) {
      throw new GatewayError(
        'forbidden',
        "This API key's default config cannot be overridden: send the request without x-gateway-config.",
        { param: 'x-gateway-config' },
      );
    }
  }
  if (defaults.metadata) gh.metadata = { ...defaults.metadata, ...gh.metadata };
  return gh;
}
