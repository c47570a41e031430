/**
 * Config compile (validate + compile, and the per-string cache the hot path uses for `x-gateway-config`)
 * and the routing decision pieces: conditional query match and leaf → provider target resolution.
 */
const FALLBACK = {
  strategy: { mode: 'fallback' },
  targets: [
    { provider: 'openai', api_key: 'sk-a', custom_host: 'http://127.0.0.1:9/fail/v1' },
    { provider: 'openai', api_key: 'sk-b', custom_host: 'http://127.0.0.1:9/v1', retry: { attempts: 2 } },
    { provider: 'anthropic', api_key: 'sk-c', cache: { mode: 'simple' } },
  ],
};

const CONDITIONAL = {
  strategy: {
    mode: 'conditional',
    conditions: [
      { query: { $and: [{ 'metadata.plan': { $eq: 'paid' } }, { 'params.model': { $in: ['gpt-4o', 'gpt-4o-mini'] } }] }, then: 'paid' },
      { query: { 'metadata.plan': 'free' }, then: 'free' },
    ],
    default: 'free',
  },
  targets: [
    { name: 'paid', provider: 'openai', api_key: 'sk-paid' },
    { name: 'free', provider: 'openai', api_key: 'sk-free', override_params: { model: 'gpt-4o-mini' } },
  ],
};

/** Registers the routing tasks. */
export async function register(bench, dist) {
  const { validateConfig } = await dist('routing/validate-config.js');
  const { compileConfig } = await dist('routing/compile-config.js');
  const { InlineConfigCache } = await dist('routing/config-cache.js');
  const { matchesQuery } = await dist('routing/conditional-query.js');
  const { resolveTarget } = await dist('routing/resolve-target.js');
  const { getProvider } = await dist('providers/registry.js');
  const known = (name) => getProvider(name) !== undefined;

  bench.add('config: validate + compile a 3-target fallback', () => compileConfig(validateConfig(structuredClone(FALLBACK), known)));
  bench.add('config: validate + compile a conditional config', () => compileConfig(validateConfig(structuredClone(CONDITIONAL), known)));
  const cache = new InlineConfigCache(known);
  const header = JSON.stringify(FALLBACK);
  cache.get(header);
  bench.add('config: x-gateway-config cache hit (same string)', () => cache.get(header));

  const compiled = compileConfig(validateConfig(structuredClone(CONDITIONAL), known));
  const query = compiled.root.conditions[0].query;
  const ctx = { metadata: { plan: 'paid' }, params: { model: 'gpt-4o-mini', messages: [] }, url: { pathname: '/v1/chat/completions' } };
  if (!matchesQuery(query, ctx)) throw new Error('query should match');
  bench.add('routing: conditional query ($and of $eq and $in)', () => matchesQuery(query, ctx));

  const leaf = compileConfig(validateConfig(structuredClone(FALLBACK), known)).root.children[1];
  const input = {
    endpoint: 'chat',
    body: { model: 'gpt-4o-mini', messages: [] },
    stream: false,
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': 'k', authorization: 'Bearer sk', 'user-agent': 'bench' },
    metadata: {},
    pathname: '/v1/chat/completions',
    organisationId: 'org',
    workspaceId: 'ws',
    headerTarget: {},
    forwardHeaderNames: null,
    requestTimeoutMs: null,
    cacheForceRefresh: false,
    signal: new AbortController().signal,
  };
  const deps = { getProvider, getVirtualKey: () => undefined };
  resolveTarget(leaf, input, deps);
  bench.add('routing: resolve a leaf to its provider target', () => resolveTarget(leaf, input, deps));
  return [];
}
