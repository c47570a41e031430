import { Type } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { toGatewayError } from '../../errors/to-gateway-error.js';
import type { ModelInfo } from '../../spec/models.js';
import type { ProviderAdapter, ProviderTarget } from '../../providers/provider.js';
import { compileConfig } from '../../routing/compile-config.js';
import type { CompiledNode } from '../../routing/compiled-config.js';
import { resolveTarget } from '../../routing/resolve-target.js';
import type { RouteInput } from '../../routing/route-input.js';
import type { GatewayDeps } from '../../gateway/deps.js';
import { requestDefaults } from '../../data-plane/request-defaults.js';
import { readGatewayHeaders } from '../../data-plane/read-gateway-headers.js';
import { resolveConfig } from '../../data-plane/resolve-config.js';

const Query = Type.Object(
  { provider: Type.Optional(Type.String()), search: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

function leaves(node: CompiledNode): CompiledNode[] {
  return node.mode === 'leaf' ? [node] : node.children.flatMap(leaves);
}


/**
 * GET /v1/models: the models of the providers the caller can reach — the provider its headers or
 * config name, else every virtual key of its workspace — filtered by `provider` and `search`;
 * `total_count` is the filtered total. GET /v1/models/{id}: one of them (404 when none is reachable);
 * ids may contain `/` (`meta-llama/Llama-3.1-8B`), matched exactly.
 */
export function registerModels(app: FastifyInstance, deps: GatewayDeps): void {
  app.get('/v1/models', { config: { permission: 'completions.write' }, schema: { querystring: Query, tags: ['data plane'], summary: 'List reachable models' } }, async (request) => {
    const data = await reachableModels(deps, request, request.query as { provider?: string; search?: string });
    return { object: 'list', data, total_count: data.length };
  });
  app.get('/v1/models/*', { config: { permission: 'completions.write' }, schema: { querystring: Query, tags: ['data plane'], summary: 'Read one reachable model' } }, async (request) => {
    const id = decodeURIComponent((request.params as { '*': string })['*']);
    if (!id) throw new GatewayError('not_found', 'No model id given.');
    const q = request.query as { provider?: string };
    const found = (await reachableModels(deps, request, { provider: q.provider })).find((m) => m.id === id);
    if (!found) throw new GatewayError('not_found', `No reachable model '${id}'.`, { param: 'id' });
    return found;
  });
}

async function reachableModels(deps: GatewayDeps, request: FastifyRequest, q: { provider?: string; search?: string }): Promise<ModelInfo[]> {
  {
    const gh = readGatewayHeaders(request.headers, requestDefaults(request.gw.key));
    const ctx = request.gw;
    const snapshot = deps.runtime.current;
    const config = resolveConfig(gh.config, ctx.workspaceId, snapshot, deps.configs);
    const controller = new AbortController();
    const input = {
      endpoint: 'chat',
      body: {},
      stream: false,
      headers: request.headers,
      metadata: gh.metadata,
      pathname: '/v1/models',
      organisationId: ctx.organisationId,
      workspaceId: ctx.workspaceId,
      headerTarget: gh.target,
      forwardHeaderNames: gh.forwardHeaderNames,
      requestTimeoutMs: gh.requestTimeoutMs,
      cacheForceRefresh: false,
      signal: controller.signal,
    } satisfies RouteInput;
    const pairs: Array<{ adapter: ProviderAdapter; target: ProviderTarget }> = [];
    const explicit = config !== null || gh.target.provider !== undefined || gh.target.virtualKey !== undefined;
    if (explicit) {
      for (const leaf of leaves(config?.root ?? compileConfig({}).root)) pairs.push(resolveTarget(leaf, input, deps.targets));
    } else {
      for (const [key, vk] of snapshot.virtualKeys) {
        if (!key.startsWith(`${ctx.workspaceId}:`)) continue;
        const adapter = deps.targets.getProvider(vk.provider);
        if (adapter && !pairs.some((p) => p.target.apiKey === vk.secret && p.adapter === adapter)) {
          pairs.push({ adapter, target: { provider: adapter.name, apiKey: vk.secret, customHost: typeof vk.config.custom_host === 'string' ? vk.config.custom_host : undefined, config: vk.config, forwardHeaders: {} } });
        }
      }
    }
    const timer = setTimeout(() => controller.abort(), 15_000);
    try {
      const lists = await Promise.all(
        pairs
          .filter((p) => !q.provider || p.adapter.name === q.provider)
          .map(async ({ adapter, target }) => {
            if (!adapter.listModels) return [];
            try {
              return await adapter.listModels({ target, stream: false, signal: controller.signal, http: deps.http, clock: deps.clock });
            } catch (err) {
              if (pairs.length === 1) throw err;
              deps.logger.warn({ err: toGatewayError(err).message, provider: adapter.name }, 'model list of one provider failed');
              return [];
            }
          }),
      );
      const seen = new Set<string>();
      const search = q.search?.toLowerCase();
      const data: ModelInfo[] = [];
      for (const m of lists.flat()) {
        const key = `${m.provider}:${m.id}`;
        if (seen.has(key) || (search && !m.id.toLowerCase().includes(search))) continue;
        seen.add(key);
        data.push(m);
      }
      return data;
    } catch (err) {
      throw err instanceof GatewayError ? err : toGatewayError(err);
    } finally {
      clearTimeout(timer);
    }
  }
}
