import type * as Oidc from 'openid-client';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { OutboundPolicy } from '../../../foundation/lib/outbound-policy.js';
import type { SecretBox } from '../../../foundation/lib/secret-box.js';
import type { SsoSettingsRecord } from '../../../infra/store/repos/sso.js';
import { checkIdentityUrl } from '../outbound-url.js';
import { ssoSecretContext } from './sso-settings-routes.js';

const TTL_MS = 60 * 60 * 1000;

interface Entry {
  version: string;
  until: number;
  config: Promise<Oidc.Configuration>;
}

/**
 * The openid-client configuration of each organisation's SSO settings, from the issuer's discovery
 * document, cached for an hour per settings version (a change of the settings rediscovers; so does a
 * failed discovery on the next sign-in). Plain-http issuers (accepted at save time only for hosts in
 * `TRUSTED_CUSTOM_HOSTS`) are allowed; the issuer passes the custom-host guard again on each discovery.
 */
export class OidcClients {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly outbound: OutboundPolicy,
    private readonly secrets: SecretBox,
    private readonly now: () => number,
  ) {}

  /** The configuration of `s` (discovered once, then cached). 502 `provider_unreachable` when discovery fails. */
  async configOf(s: SsoSettingsRecord): Promise<Oidc.Configuration> {
    const version = `${s.issuer}\n${s.client_id}\n${s.updated_at}`;
    const hit = this.entries.get(s.organisation_id);
    if (hit && hit.version === version && hit.until > this.now()) return hit.config;
    const config = this.discover(s);
    this.entries.set(s.organisation_id, { version, until: this.now() + TTL_MS, config });
    config.catch(() => {
      if (this.entries.get(s.organisation_id)?.config === config) this.entries.delete(s.organisation_id);
    });
    return config;
  }

  private async discover(s: SsoSettingsRecord): Promise<Oidc.Configuration> {
    const oidc = await import('openid-client');
    await checkIdentityUrl(this.outbound, s.issuer, 'issuer');
    const secret = this.secrets.decrypt(s.client_secret, ssoSecretContext(s.organisation_id));
    const auth = s.token_endpoint_auth_method === 'client_secret_post' ? oidc.ClientSecretPost(secret) : oidc.ClientSecretBasic(secret);
    const insecure = new URL(s.issuer).protocol === 'http:';
    try {
      return await oidc.discovery(new URL(s.issuer), s.client_id, undefined, auth, {
        timeout: 10,
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
    } catch (e) {
      throw new GatewayError('provider_unreachable', `The SSO issuer's discovery document could not be read: ${(e as Error).message}`);
    }
  }
}
