import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { OutboundPolicy } from '../../../foundation/lib/outbound-policy.js';
import { SecretBox } from '../../../foundation/lib/secret-box.js';
import type { McpIntegration } from '../../../infra/store/repos/mcp.js';
import type { Database } from '../../../infra/store/schema.js';
import { UpstreamFetch } from '../upstream-fetch.js';
import { startOAuthUpstream, type OAuthUpstream } from '../../../../test/fakes/mcp/oauth-upstream.js';
import { UpstreamDiscovery } from './upstream-discovery.js';

/** The upstream fetch, counting discoveries (each begins with the unauthenticated probe of the MCP URL). */
class CountingFetch extends UpstreamFetch {
  probes = 0;

  override fetchFor(onBodyEnd?: () => void): FetchLike {
    const inner = super.fetchFor(onBodyEnd);
    return (url, init) => {
      if (typeof init?.body === 'string' && init.body.includes('gateway-oauth-discovery')) this.probes++;
      return inner(url, init);
    };
  }
}

/**
 * Discovery's cache against a real authorization server (oidc-provider): kept while what discovery reads of the
 * integration stays the same, whatever `updated_at` says, and a replaced version of the integration (revoking the
 * grants issued under it) cached apart from the current one.
 */
describe('UpstreamDiscovery cache', () => {
  let up: OAuthUpstream;
  let fetcher: CountingFetch;
  let discovery: UpstreamDiscovery;
  const secrets = new SecretBox(randomBytes(32));
  let now = Date.now();

  const integration = (updatedAt: number, scopes: string[], id = 'i-1'): McpIntegration => ({
    id,
    organisation_id: 'o-1',
    workspace_id: null,
    name: 'tools',
    slug: 'tools',
    url: up.mcpUrl,
    transport: 'http',
    auth_type: 'oauth',
    headers_ciphertext: '',
    header_hints: {},
    oauth: { client_id: up.clientId, scopes },
    oauth_secret_ciphertext: secrets.encrypt(up.clientSecret, `${id}:oauth`),
    secret_mappings: [],
    created_at: 1,
    updated_at: updatedAt,
  });
  const scopeOf = async (i: McpIntegration) => (await discovery.of(i)).scope;

  beforeAll(async () => {
    up = await startOAuthUpstream('http://127.0.0.1:1/v1/mcp/oauth/callback');
    const policy = new OutboundPolicy();
    fetcher = new CountingFetch(policy);
    // An integration with its own oauth.client_id never reads the store.
    discovery = new UpstreamDiscovery(fetcher, policy, secrets, () => now, undefined as unknown as Kysely<Database>);
  });
  afterAll(async () => {
    await fetcher?.close();
    await up?.close();
  });

  it('discovers once per version of the settings, and keeps a replaced version apart from the current one', async () => {
    const v1 = integration(1, ['tools']);
    expect(await scopeOf(v1)).toBe('tools');
    expect(await scopeOf(v1)).toBe('tools');
    expect(fetcher.probes).toBe(1);

    const v2 = integration(2, ['openid', 'tools']);
    expect(await scopeOf(v2)).toBe('openid tools');
    expect(fetcher.probes).toBe(2);

    // The replaced version (its connections' grants being revoked one by one): discovered once, then cached apart.
    expect(await scopeOf(v1)).toBe('tools');
    expect(await scopeOf(v1)).toBe('tools');
    expect(fetcher.probes).toBe(3);
    // The current version's entry is still there.
    expect(await scopeOf(v2)).toBe('openid tools');
    expect(fetcher.probes).toBe(3);

    // Settings changed again within the same millisecond (the same updated_at): discovered anew.
    const v3 = integration(2, ['tools']);
    expect(await scopeOf(v3)).toBe('tools');
    expect(fetcher.probes).toBe(4);
  });

  it('sweeps out expired entries (integrations deleted or unused for an hour) once it holds 64', async () => {
    const cached = () => (discovery as unknown as { entries: Map<string, unknown> }).entries;
    for (let n = 0; n < 64; n++) await discovery.of(integration(1, ['tools'], `gone-${n}`));
    expect(cached().size).toBe(65);
    now += 2 * 3_600_000;
    await discovery.of(integration(1, ['tools'], 'new'));
    expect([...cached().keys()]).toEqual(['new']);
  });
});
