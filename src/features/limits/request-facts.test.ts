import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../routing/compile-config.js';
import type { ConfigObject } from '../../routing/config-schema.js';
import type { RuntimeSnapshot } from '../../runtime/snapshot.js';
import type { DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';
import type { Workspace } from '../../infra/store/repos/organisations.js';
import { providerBeforeRouting, requestFacts } from './request-facts.js';

const ws: Workspace = {
  id: 'ws-1',
  organisation_id: 'org',
  name: 'A',
  slug: 'team-a',
  status: 'active',
  settings: {},
  description: null,
  metadata: {},
  defaults: null,
  created_at: 0,
  updated_at: 0,
};

const snapshot = {
  version: 1,
  apiKeysByHash: new Map(),
  workspacesById: new Map([['ws-1', ws]]),
  workspacesBySlug: new Map(),
  configs: new Map(),
  virtualKeys: new Map([
    ['ws-1:vk-anthropic', { provider: 'anthropic', secret: 's', config: {} }],
    ['ws-1:vk-openai', { provider: 'openai', secret: 's', config: {} }],
  ]),
  defaultOrganisationId: 'org',
  defaultWorkspaceId: 'ws-1',
  sections: new Map(),
} as unknown as RuntimeSnapshot;

function dp(
  headers: Record<string, string>,
  config?: Record<string, unknown>,
  body: Record<string, unknown> = { model: 'gpt-4o' },
): DataPlaneRequest {
  return {
    ctx: {
      requestId: 'r',
      traceId: 't',
      startedAt: 0,
      organisationId: 'org',
      workspaceId: 'ws-1',
      key: { id: 'key-1', organisationId: 'org', workspaceId: null, type: 'organisation-service', scopes: [], expiresAt: null, name: 'k' },
    },
    endpoint: 'chat',
    body,
    stream: false,
    metadata: { _user: 'ann' },
    headers,
    config: config ? compileConfig(config as ConfigObject) : null,
    responseHeaders: {},
    locals: {},
  };
}

describe('provider before routing', () => {
  it('comes from x-gateway-provider, else the virtual key header, when there is no config', () => {
    expect(providerBeforeRouting(dp({ 'x-gateway-provider': 'openai' }), snapshot)).toBe('openai');
    expect(providerBeforeRouting(dp({ 'x-gateway-virtual-key': 'vk-anthropic' }), snapshot)).toBe('anthropic');
    expect(providerBeforeRouting(dp({ 'x-gateway-virtual-key': 'unknown' }), snapshot)).toBeUndefined();
    expect(providerBeforeRouting(dp({}), snapshot)).toBeUndefined();
  });

  it("comes from the config's leaf: its provider, its virtual key, else the header", () => {
    expect(providerBeforeRouting(dp({ 'x-gateway-provider': 'openai' }, { provider: 'anthropic', api_key: 'k' }), snapshot)).toBe(
      'anthropic',
    );
    expect(providerBeforeRouting(dp({}, { virtual_key: 'vk-anthropic' }), snapshot)).toBe('anthropic');
    expect(providerBeforeRouting(dp({ 'x-gateway-provider': 'openai' }, { retry: { attempts: 2 } }), snapshot)).toBe('openai');
  });

  it('is known for a strategy whose targets all use one provider, unknown when they differ', () => {
    const same = { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', api_key: 'a' }, { virtual_key: 'vk-openai' }] };
    const mixed = {
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'a' },
        { provider: 'anthropic', api_key: 'b' },
      ],
    };
    expect(providerBeforeRouting(dp({}, same), snapshot)).toBe('openai');
    expect(providerBeforeRouting(dp({}, mixed), snapshot)).toBeUndefined();
  });
});

describe('request facts', () => {
  it('reads workspace id and slug, key id, endpoint, model, provider and metadata', () => {
    expect(requestFacts(dp({ 'x-gateway-provider': 'openai' }), snapshot)).toEqual({
      workspaceId: 'ws-1',
      workspaceSlug: 'team-a',
      apiKeyId: 'key-1',
      endpoint: 'chat',
      model: 'gpt-4o',
      provider: 'openai',
      metadata: { _user: 'ann' },
    });
    expect(requestFacts(dp({}, undefined, { model: 42 }), snapshot).model).toBeUndefined();
  });
});
