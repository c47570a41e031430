import { describe, expect, it } from 'vitest';
import { compileConfig } from './compile-config.js';
import { resolveTarget, type ResolvedVirtualKey } from './resolve-target.js';
import type { RouteInput } from './route-input.js';
import { getProvider } from '../providers/registry.js';

const keys = new Map<string, ResolvedVirtualKey>([
  ['ws:openai-prod', { provider: 'openai', secret: 'sk-prod', config: { custom_host: 'https://proxy.example.com/v1' } }],
  [
    'ws:limited',
    {
      provider: 'openai',
      secret: 'sk-lim',
      config: {},
      models: { allowAll: false, enabled: new Set(['gpt-4o']), hosts: new Map([['gpt-4o', 'https://gpt4o.example.com/v1']]) },
    },
  ],
]);
const deps = { getProvider, getVirtualKey: (ref: string, ws: string) => keys.get(`${ws}:${ref}`) };

function input(body: Record<string, unknown> | undefined, headerTarget: RouteInput['headerTarget'] = {}): RouteInput {
  return {
    endpoint: 'chat',
    body: body as Record<string, unknown>,
    stream: false,
    headers: {},
    metadata: {},
    pathname: '/v1/chat/completions',
    organisationId: 'o',
    workspaceId: 'ws',
    headerTarget,
    forwardHeaderNames: null,
    requestTimeoutMs: null,
    cacheForceRefresh: false,
    signal: new AbortController().signal,
  };
}
const root = (config: Record<string, unknown> = {}) => compileConfig(config as never).root;

describe('resolveTarget: providers by @slug', () => {
  it('a model prefix selects the provider and is dropped from the model', () => {
    const r = resolveTarget(root(), input({ model: '@openai-prod/gpt-4o' }), deps);
    expect(r.model).toBe('gpt-4o');
    expect(r.target).toMatchObject({ provider: 'openai', apiKey: 'sk-prod', customHost: 'https://proxy.example.com/v1' });
  });

  it('a config provider wins over the prefix; the prefix is still dropped', () => {
    const r = resolveTarget(root({ provider: 'openai', api_key: 'sk-own' }), input({ model: '@openai-prod/gpt-4o' }), deps);
    expect(r.model).toBe('gpt-4o');
    expect(r.target.apiKey).toBe('sk-own');
  });

  it('an unknown slug is 404; no body (file routes) resolves by header', () => {
    expect(() => resolveTarget(root(), input({ model: '@nope/gpt-4o' }), deps)).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(resolveTarget(root(), input(undefined, { provider: '@openai-prod' }), deps).target.apiKey).toBe('sk-prod');
  });

  it('an integration model list refuses models not enabled and routes a model to its custom host', () => {
    expect(resolveTarget(root(), input({ model: '@limited/gpt-4o' }), deps).target.customHost).toBe('https://gpt4o.example.com/v1');
    expect(() => resolveTarget(root(), input({ model: 'gpt-4o-mini' }, { provider: '@limited' }), deps)).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'model' }),
    );
  });
});
