/**
 * What each target is asked in each scenario: path, headers and body. A scenario returns null for a
 * target that does not take part (direct has no fallback or cache; the reference has no policies).
 */

const MESSAGES = [
  { role: 'system', content: 'You are a terse assistant.' },
  { role: 'user', content: 'Say hello in five words.' },
];

/** The chat request body every scenario sends (`stream` added for the streamed one). */
export const CHAT_BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: MESSAGES, max_tokens: 64 });
/** The streamed chat request body. */
export const STREAM_BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: MESSAGES, max_tokens: 64, stream: true });

const CHAT_PATH = '/v1/chat/completions';

/**
 * @typedef {{ origin: string, kind: 'direct' | 'floor' | 'ours' | 'reference', adminKey?: string, gatewayKey?: string }} Target
 * `gatewayKey`: the key data-plane requests carry when it is not the admin key (the production scenario's user key).
 * @typedef {{ origin: string, path: string, headers: Record<string, string>, body: string }} Call
 */

function leaf(fakeUrl, extra = {}) {
  return { provider: 'openai', api_key: 'sk-bench', custom_host: `${fakeUrl}/v1`, ...extra };
}

function fallbackConfig(fakeUrl) {
  return {
    strategy: { mode: 'fallback' },
    targets: [{ provider: 'openai', api_key: 'sk-bench', custom_host: `${fakeUrl}/fail/v1` }, leaf(fakeUrl), leaf(fakeUrl)],
  };
}

/** Headers that route a request through a gateway to the fake with a config object. */
function configHeaders(target, config) {
  if (target.kind === 'ours') {
    return { 'content-type': 'application/json', 'x-gateway-api-key': target.adminKey, 'x-gateway-config': JSON.stringify(config) };
  }
  return { 'content-type': 'application/json', 'x-portkey-config': JSON.stringify(config) };
}

/** Headers that route a request through a gateway to the fake with the provider header form. */
function providerHeaders(target, fakeUrl) {
  const auth = { 'content-type': 'application/json', authorization: 'Bearer sk-bench' };
  if (target.kind === 'ours') {
    return {
      ...auth,
      'x-gateway-api-key': target.gatewayKey ?? target.adminKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': `${fakeUrl}/v1`,
    };
  }
  return { ...auth, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${fakeUrl}/v1` };
}

/**
 * The scenarios in run order. `directScenario` names the direct run that "+P50 vs direct" compares with.
 * `stream` selects the streaming client. `cacheHeader` makes the runner check a cache hit before measuring.
 */
export const SCENARIOS = [
  {
    name: 'chat',
    call(target, fakeUrl) {
      if (target.kind === 'direct')
        return { origin: target.origin, path: CHAT_PATH, headers: { 'content-type': 'application/json' }, body: CHAT_BODY };
      if (target.kind === 'floor')
        return {
          origin: target.origin,
          path: CHAT_PATH,
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
          body: CHAT_BODY,
        };
      return { origin: target.origin, path: CHAT_PATH, headers: providerHeaders(target, fakeUrl), body: CHAT_BODY };
    },
  },
  {
    name: 'stream',
    stream: true,
    call(target, fakeUrl) {
      if (target.kind === 'direct')
        return { origin: target.origin, path: CHAT_PATH, headers: { 'content-type': 'application/json' }, body: STREAM_BODY };
      if (target.kind === 'floor')
        return {
          origin: target.origin,
          path: CHAT_PATH,
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
          body: STREAM_BODY,
        };
      return { origin: target.origin, path: CHAT_PATH, headers: providerHeaders(target, fakeUrl), body: STREAM_BODY };
    },
  },
  {
    name: 'fallback',
    directScenario: 'chat',
    call(target, fakeUrl) {
      if (target.kind === 'direct' || target.kind === 'floor') return null;
      return { origin: target.origin, path: CHAT_PATH, headers: configHeaders(target, fallbackConfig(fakeUrl)), body: CHAT_BODY };
    },
  },
  {
    name: 'cache hit',
    directScenario: 'chat',
    cache: true,
    call(target, fakeUrl) {
      if (target.kind === 'direct' || target.kind === 'floor') return null;
      return {
        origin: target.origin,
        path: CHAT_PATH,
        headers: configHeaders(target, leaf(fakeUrl, { cache: { mode: 'simple' } })),
        body: CHAT_BODY,
      };
    },
  },
  {
    name: 'production',
    directScenario: 'chat',
    production: true,
    call(target, fakeUrl) {
      if (target.kind !== 'ours') return null;
      return { origin: target.origin, path: CHAT_PATH, headers: providerHeaders(target, fakeUrl), body: CHAT_BODY };
    },
  },
];

/** The rate-limit policy the production scenario creates: one that never refuses. */
export const PRODUCTION_POLICY = {
  name: 'bench-huge-limit',
  type: 'requests',
  unit: 'rpm',
  value: 1_000_000_000,
  conditions: [{ key: 'workspace_id', value: 'default' }],
  group_by: [{ key: 'api_key' }],
};

/** The production scenario's user: a member of the default workspace. */
export const PRODUCTION_USER = { email: 'bench-user@example.com', name: 'Bench user', workspaces: [{ id: 'default', role: 'member' }] };

/** The production scenario's requests carry this user's `workspace-user` key (its `user_id` is filled in). */
export const PRODUCTION_USER_KEY = {
  name: 'bench-user-key',
  type: 'workspace-user',
  workspace_id: 'default',
  scopes: ['completions.write'],
};

/** The usage-limit policy the production scenario creates: a cost budget that matches every request and is never reached. */
export const PRODUCTION_USAGE_LIMIT = {
  name: 'bench-huge-budget',
  workspace_id: 'default',
  type: 'cost',
  credit_limit: 1_000_000_000,
  conditions: [{ key: 'workspace_id', value: 'default' }],
  group_by: [{ key: 'api_key' }],
};
