import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { checkSsoDomains, domainOfEmail } from './sso-domains.js';
import { ssoScopes } from './sso-login-routes.js';

async function paramOf(f: () => Promise<unknown>): Promise<string | null | undefined> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    return (e as GatewayError).param;
  }
  throw new Error('expected a GatewayError');
}

describe('SSO email domains', () => {
  it('accepts allow_subdomains only on a registrable root domain (public-suffix aware)', async () => {
    expect(await checkSsoDomains([{ domain: 'Example.CO.UK', allow_subdomains: true }, { domain: 'eu.example.com' }])).toEqual([
      { domain: 'example.co.uk', allow_subdomains: true },
      { domain: 'eu.example.com', allow_subdomains: false },
    ]);
    expect(await paramOf(() => checkSsoDomains([{ domain: 'example.com' }, { domain: 'eu.example.co.uk', allow_subdomains: true }]))).toBe(
      'domains[1].allow_subdomains',
    );
    expect(await paramOf(() => checkSsoDomains([{ domain: 'a.github.io' }, { domain: 'b.a.github.io', allow_subdomains: true }]))).toBe(
      'domains[1].allow_subdomains',
    );
  });

  it('refuses public suffixes, IP addresses, malformed names and repeats', async () => {
    expect(await paramOf(() => checkSsoDomains([{ domain: 'co.uk' }]))).toBe('domains[0].domain');
    expect(await paramOf(() => checkSsoDomains([{ domain: '10.0.0.1' }]))).toBe('domains[0].domain');
    expect(await paramOf(() => checkSsoDomains([{ domain: 'a..b' }]))).toBe('domains[0].domain');
    expect(await paramOf(() => checkSsoDomains([{ domain: 'user@example.com' }]))).toBe('domains[0].domain');
    expect(await paramOf(() => checkSsoDomains([{ domain: 'example.com' }, { domain: 'EXAMPLE.com' }]))).toBe('domains[1].domain');
  });

  it('matches an email to its domain, subdomains only under a root allowing them', () => {
    const domains = [
      { domain: 'example.com', allow_subdomains: true },
      { domain: 'corp.example.org', allow_subdomains: false },
    ];
    expect(domainOfEmail(domains, 'a@Example.com')?.domain).toBe('example.com');
    expect(domainOfEmail(domains, 'a@x.y.example.com')?.domain).toBe('example.com');
    expect(domainOfEmail(domains, 'a@corp.example.org')?.domain).toBe('corp.example.org');
    expect(domainOfEmail(domains, 'a@eu.corp.example.org')).toBeUndefined();
    expect(domainOfEmail(domains, 'a@notexample.com')).toBeUndefined();
    expect(domainOfEmail(domains, 'a@example.org')).toBeUndefined();
    expect(domainOfEmail(domains, 'no-at-sign')).toBeUndefined();
  });

  it('asks for openid email profile, then the configured scopes, then OIDC_CUSTOM_SCOPES, without repeats', () => {
    expect(ssoScopes(['groups', 'email'], ['offline_access', 'groups'])).toBe('openid email profile groups offline_access');
    expect(ssoScopes([], [])).toBe('openid email profile');
  });
});
