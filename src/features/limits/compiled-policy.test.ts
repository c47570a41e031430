import { describe, expect, it } from 'vitest';
import type { RateLimitPolicy } from '../../infra/store/repos/rate-limit-policies.js';
import { compilePolicy, counterKey, matchesPolicy } from './compiled-policy.js';
import type { RequestFacts } from './request-facts.js';

function policy(over: Partial<RateLimitPolicy> = {}): RateLimitPolicy {
  return {
    id: 'p1',
    organisation_id: 'o',
    workspace_id: 'ws-1',
    name: null,
    type: 'requests',
    unit: 'rpm',
    value: 5,
    conditions: [],
    group_by: [],
    status: 'active',
    created_at: 0,
    updated_at: 0,
    ...over,
  };
}

const facts: RequestFacts = {
  workspaceId: 'ws-1',
  workspaceSlug: 'team-a',
  apiKeyId: 'key-1',
  endpoint: 'chat',
  model: 'gpt-4o',
  provider: 'openai',
  metadata: { _user: 'ann', env: 'prod' },
};

const matches = (conditions: RateLimitPolicy['conditions'], f: RequestFacts = facts) =>
  matchesPolicy(compilePolicy(policy({ conditions })), f);

describe('policy conditions', () => {
  it('a policy without conditions matches every request', () => {
    expect(matches([])).toBe(true);
  });

  it.each([
    ['workspace_id', 'ws-1', true],
    ['workspace_id', 'team-a', true],
    ['workspace_id', 'ws-2', false],
    ['api_key', 'key-1', true],
    ['api_key', 'key-2', false],
    ['endpoint_type', 'chat', true],
    ['endpoint_type', 'chatComplete', true],
    ['endpoint_type', 'chat_completions', true],
    ['endpoint_type', 'embeddings', false],
    ['model', 'gpt-4o', true],
    ['model', 'gpt-4o-mini', false],
    ['provider', 'openai', true],
    ['provider', 'anthropic', false],
    ['metadata._user', 'ann', true],
    ['metadata._user', 'bob', false],
    ['metadata.team', 'x', false],
  ])('%s = %s → %s', (key, value, expected) => {
    expect(matches([{ key, value }])).toBe(expected);
  });

  it('different keys must all match; values of the same key are alternatives', () => {
    expect(
      matches([
        { key: 'model', value: 'gpt-4o' },
        { key: 'metadata.env', value: 'prod' },
      ]),
    ).toBe(true);
    expect(
      matches([
        { key: 'model', value: 'gpt-4o' },
        { key: 'metadata.env', value: 'dev' },
      ]),
    ).toBe(false);
    expect(
      matches([
        { key: 'model', value: 'o3' },
        { key: 'model', value: 'gpt-4o' },
      ]),
    ).toBe(true);
    expect(
      matches([
        { key: 'model', value: 'o3' },
        { key: 'model', value: 'o4' },
      ]),
    ).toBe(false);
  });

  it('a fact the request lacks never matches (no model, provider unknown before routing, no key)', () => {
    const bare: RequestFacts = { workspaceId: 'ws-1', endpoint: 'embeddings', metadata: {} };
    expect(matches([{ key: 'model', value: '' }], bare)).toBe(false);
    expect(matches([{ key: 'provider', value: 'openai' }], bare)).toBe(false);
    expect(matches([{ key: 'api_key', value: 'key-1' }], bare)).toBe(false);
    expect(matches([{ key: 'endpoint_type', value: 'embedding' }], bare)).toBe(true);
  });
});

describe('policy group_by', () => {
  const key = (group_by: RateLimitPolicy['group_by'], f: RequestFacts = facts) => counterKey(compilePolicy(policy({ group_by })), f);

  it('without group_by every request shares the policy counter (named by id, type and unit)', () => {
    expect(key([])).toBe('p1:requests:rpm');
    expect(key([], { ...facts, apiKeyId: 'other' })).toBe('p1:requests:rpm');
    expect(counterKey(compilePolicy(policy({ type: 'tokens', unit: 'rpd' })), facts)).toBe('p1:tokens:rpd');
  });

  it.each([
    ['api_key', { apiKeyId: 'key-2' }],
    ['workspace_id', { workspaceId: 'ws-9' }],
    ['model', { model: 'o3' }],
    ['provider', { provider: 'anthropic' }],
    ['endpoint_type', { endpoint: 'embeddings' }],
    ['metadata._user', { metadata: { _user: 'bob' } }],
  ] as const)('group_by %s separates requests that differ in it and only in it', (k, change) => {
    const g = [{ key: k }];
    expect(key(g)).toBe(key(g, { ...facts }));
    expect(key(g)).not.toBe(key(g, { ...facts, ...change }));
    expect(key(g)).toMatch(/^p1:requests:rpm:[0-9a-f]{24}$/);
    if (k !== 'metadata._user') expect(key(g)).toBe(key(g, { ...facts, metadata: { _user: 'zed' } }));
  });

  it('several keys combine; a missing value is one shared bucket', () => {
    const g = [{ key: 'api_key' }, { key: 'metadata._user' }];
    expect(key(g)).not.toBe(key(g, { ...facts, apiKeyId: 'key-2' }));
    expect(key(g)).not.toBe(key(g, { ...facts, metadata: { _user: 'bob' } }));
    const anon1 = key(g, { ...facts, metadata: {} });
    const anon2 = key(g, { ...facts, metadata: { env: 'dev' } });
    expect(anon1).toBe(anon2);
    expect(anon1).not.toBe(key(g));
  });
});

describe('counter keys remembered per compiled policy', () => {
  it('gives each group value its own key, the same one each time, and the key built without the memo', () => {
    const p = compilePolicy(policy({ group_by: [{ key: 'api_key' }] }));
    const a = counterKey(p, { ...facts, apiKeyId: 'key-a' });
    const b = counterKey(p, { ...facts, apiKeyId: 'key-b' });
    expect(a).not.toBe(b);
    expect(counterKey(p, { ...facts, apiKeyId: 'key-a' })).toBe(a);
    // A fresh compile of the same policy (no memo yet) builds the same key.
    expect(counterKey(compilePolicy(policy({ group_by: [{ key: 'api_key' }] })), { ...facts, apiKeyId: 'key-a' })).toBe(a);
  });

  it('keeps answering correctly past the memo bound (it starts over)', () => {
    const p = compilePolicy(policy({ group_by: [{ key: 'model' }] }));
    const first = counterKey(p, { ...facts, model: 'm-0' });
    for (let i = 1; i <= 10_001; i++) counterKey(p, { ...facts, model: `m-${i}` });
    expect(counterKey(p, { ...facts, model: 'm-0' })).toBe(first);
    expect(counterKey(p, { ...facts, model: 'm-10001' })).not.toBe(first);
  });
});
