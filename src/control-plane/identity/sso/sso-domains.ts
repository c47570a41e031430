import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { SsoDomain } from '../../../infra/store/repos/sso.js';

/**
 * Checks and normalises the email domains of the SSO settings: each a host name (lowercased, no
 * duplicates); `allow_subdomains: true` only on a registrable root domain, public-suffix aware
 * (`example.co.uk` yes, `eu.example.co.uk` no). 400 naming `domains[i]…`. The public-suffix list (`tldts`,
 * ~1 MB of heap) is loaded at the first check, not with the gateway: only SSO settings writes need it.
 */
export async function checkSsoDomains(domains: ReadonlyArray<{ domain: string; allow_subdomains?: boolean }>): Promise<SsoDomain[]> {
  const { parse } = await import('tldts');
  const seen = new Set<string>();
  return domains.map((d, i) => {
    const domain = d.domain.trim().toLowerCase().replace(/\.$/, '');
    const info = parse(domain);
    if (!info.domain || info.isIp || info.hostname !== domain) {
      throw new GatewayError('invalid_request', `domains[${i}].domain must be an email domain such as example.com.`, {
        param: `domains[${i}].domain`,
      });
    }
    if (seen.has(domain))
      throw new GatewayError('invalid_request', `domains[${i}].domain repeats '${domain}'.`, { param: `domains[${i}].domain` });
    seen.add(domain);
    const allow = d.allow_subdomains === true;
    if (allow && info.domain !== domain) {
      throw new GatewayError(
        'invalid_request',
        `domains[${i}].allow_subdomains is accepted only on a registrable root domain ('${info.domain}', not '${domain}').`,
        { param: `domains[${i}].allow_subdomains` },
      );
    }
    return { domain, allow_subdomains: allow };
  });
}

/** The configured domain an email falls under (its own, or a root allowing subdomains); undefined otherwise. */
export function domainOfEmail(domains: readonly SsoDomain[], email: string): SsoDomain | undefined {
  const at = email.lastIndexOf('@');
  if (at < 1) return undefined;
  const host = email.slice(at + 1).toLowerCase();
  return domains.find((d) => host === d.domain) ?? domains.find((d) => d.allow_subdomains && host.endsWith(`.${d.domain}`));
}
