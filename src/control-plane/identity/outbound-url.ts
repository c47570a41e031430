import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { OutboundPolicy } from '../../foundation/lib/outbound-policy.js';
import { checkCustomHost } from '../resources/integrations/integration-input.js';

/**
 * Checks a URL the gateway will call for identity (a JWKS URL, an OpenID issuer) at save time: it
 * passes the custom-host guard (a private, loopback or link-local host only when trusted by
 * `TRUSTED_CUSTOM_HOSTS`), and plain `http` is allowed only for a trusted host. 400 naming `param`.
 */
export async function checkIdentityUrl(policy: OutboundPolicy, url: string, param: string): Promise<void> {
  await checkCustomHost(policy, url, param);
  const u = new URL(url);
  if (u.protocol === 'http:' && !policy.trusts(u.hostname)) {
    throw new GatewayError('invalid_request', `${param} must use https (plain http only for a host listed in TRUSTED_CUSTOM_HOSTS).`, {
      param,
    });
  }
}
