import { Type } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { toGatewayError } from '../../../foundation/errors/to-gateway-error.js';
import type { ModelInfo } from '../../../foundation/spec/models.js';
import type { ProviderAdapter, ProviderTarget } from '../../../providers/provider.js';
import { compileConfig } from '../../../routing/compile-config.js';
import type { CompiledNode } from '../../../routing/compiled-config.js';
import type { RouteInput } from '../../../routing/route-input.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { requestDefaults } from '../../pipeline/request-defaults.js';
import { readGatewayHeaders } from '../../pipeline/read-gateway-headers.js';
import { resolveConfig } from '../../pipeline/resolve-config.js';
import { resolveTarget, type ResolvedVirtualKey } from '../../../routing/resolve-target.js';
import { catalogueModel, catalogueModelsOf } from '../../../infra/pricing/catalogue.js';
import { listPrice, type UnitPrices } from '../../../infra/pricing/price-usage.js';
import type { PricingTerms } from '../../../infra/pricing/price-config.js';
import { PageQuery, pageOf } from '../../../identity/paging.js';
import { principalOf, tenantScope } from '../../../identity/authorize.js';

const Query = Type.Object(
  {
    provider: Type.Optional(Type.String()),
    search: Type.Optional(Type.String()),
    workspace_id: Type.Optional(Type.String({ minLength: 1 })),
    ...PageQuery,
  },
  { additionalProperties: false },
);

type ModelsQuery = { provider?: string; search?: string; workspace_id?: string; current_page?: number; page_size?: number };

/** A listed model with what the catalogue knows of it: context window and prices (docs/pricing.md). */
type ListedModel = ModelInfo & { context_window?: number; pricing?: UnitPrices };

function leaves(node: CompiledNode): CompiledNode[] {
  return node.mode === 'leaf' ? [node] : node.children.flatMap(leaves);
}

/**
 * GET /v1/models: the models of the providers the caller can reach — the provider its headers or
 * config name, else every provider of its workspace (`workspace_id` picks one of the organisation's
 * workspaces for an organisation key; another tenant's is 404) — filtered by `provider` and `search`,
 * paged by `current_page` / `page_size`; `total_count` is the filtered total. A provider that cannot
 * list its models lists the model catalogue's; an integration's allow list applies. Each model carries
 * the catalogue's `context_window` and its `pricing` (the integration's override and multiplier
 * included) when known. GET /v1/models/{id}: one of them (404 when none is reachable); ids may contain
 * `/` (`meta-llama/Llama-3.1-8B`), matched exactly.
 */
export function registerModels(app: FastifyInstance, deps: GatewayDeps): void {
  app.get(
    '/v1/models',
    { config: { permission: 'completions.write' }, schema: { querystring: Query, tags: ['data plane'], summary: 'List reachable models' } },
    async (request) => {
      const q = request.query as ModelsQuery;
      const all = await reachableModels(deps, request, q);
      const { limit, offset } = pageOf(q);
      return { object: 'list', data: all.slice(offset, offset + limit), total_count: all.length };
    },
  );
  app.get(
    '/v1/models/*',
    {
      config: { permission: 'completions.write' },
      schema: { querystring: Query, tags: ['data plane'], summary: 'Read one reachable model' },
    },
    async (request) => {
      const id = decodeURIComponent((request.params as { '*': string })['*']);
      if (!id) throw new GatewayError('not_found', 'No model id given.');
      const q = request.query as { provider?: string };
      const found = (await reachableModels(deps, request, { provider: q.provider })).find((m) => m.id === id);
      if (!found) throw new GatewayError('not_found', `No reachable model '${id}'.`, { param: 'id' });
      return found;
    },
  );
}

/** The models of one provider: its own list, else the catalogue's; an integration's allow list applies. */
async function modelsOf(deps: GatewayDeps, p: Reachable, signal: AbortSignal): Promise<ModelInfo[]> {
  const listed = p.adapter.listModels
    ? await p.adapter.listModels({ target: p.target, stream: false, signal, http: deps.http, clock: deps.clock })
    : catalogueModelsOf(p.adapter.name).map((m) => ({
        id: m.id,
        object: 'model' as const,
        created: 0,
        owned_by: p.adapter.name,
        provider: p.adapter.name,
      }));
  const allowed = p.models;
  return allowed && !allowed.allowAll ? listed.filter((m) => allowed.enabled.has(m.id)) : listed;
}

/** A model with the catalogue's context window and the price the caller pays through this provider. */
function described(m: ModelInfo, p: Reachable, now: number): ListedModel {
  const window = catalogueModel(p.adapter.name, m.id)?.contextWindow;
  const pricing = listPrice(p.adapter.name, m.id, p.pricing, now);
  return { ...m, ...(window ? { context_window: window } : {}), ...(pricing ? { pricing } : {}) };
}

interface Reachable {
  adapter: ProviderAdapter;
  target: ProviderTarget;
  pricing?: PricingTerms;
  models?: ResolvedVirtualKey['models'];
}

async function reachableModels(deps: GatewayDeps, request: FastifyRequest, q: ModelsQuery): Promise<ListedModel[]> {
  {
    const gh = readGatewayHeaders(request.headers, requestDefaults(request.gw.key));
    const ctx = request.gw;
    const snapshot = deps.runtime.current;
    // `workspace_id` narrows an organisation key to one of its workspaces (404 for any other).
    const workspaceId =
      q.workspace_id === undefined ? ctx.workspaceId : tenantScope(principalOf(request), snapshot, q.workspace_id).workspaceIds[0]!;
    const config = resolveConfig(gh.config, workspaceId, snapshot, deps.configs);
    const controller = new AbortController();
    const input = {
      endpoint: 'chat',
      body: {},
      stream: false,
      headers: request.headers,
      metadata: gh.metadata,
      pathname: '/v1/models',
      organisationId: ctx.organisationId,
      workspaceId,
      headerTarget: gh.target,
      forwardHeaderNames: gh.forwardHeaderNames,
      requestTimeoutMs: gh.requestTimeoutMs,
      cacheForceRefresh: false,
      signal: controller.signal,
    } satisfies RouteInput;
    const pairs: Reachable[] = [];
    const explicit = config !== null || gh.target.provider !== undefined || gh.target.virtualKey !== undefined;
    if (explicit) {
      for (const leaf of leaves(config?.root ?? compileConfig({}).root)) pairs.push(resolveTarget(leaf, input, deps.targets));
    } else {
      for (const [key, vk] of snapshot.virtualKeys) {
        if (!key.startsWith(`${workspaceId}:`)) continue;
        const adapter = deps.targets.getProvider(vk.provider);
        if (
          adapter &&
          !pairs.some((p) => p.target.apiKey === vk.secret && p.adapter === adapter && p.pricing === vk.pricing && p.models === vk.models)
        ) {
          const target = {
            provider: adapter.name,
            apiKey: vk.secret,
            customHost: typeof vk.config.custom_host === 'string' ? vk.config.custom_host : undefined,
            config: vk.config,
            forwardHeaders: {},
          };
          pairs.push({ adapter, target, ...(vk.pricing ? { pricing: vk.pricing } : {}), ...(vk.models ? { models: vk.models } : {}) });
        }
      }
    }
    const timer = setTimeout(() => controller.abort(), 15_000);
    try {
      const lists = await Promise.all(
        pairs
          .filter((p) => !q.provider || p.adapter.name === q.provider)
          .map(async (p) => {
            try {
              const now = deps.clock.now();
              return (await modelsOf(deps, p, controller.signal)).map((m) => described(m, p, now));
            } catch (err) {
              if (pairs.length === 1) throw err;
              deps.logger.warn({ err: toGatewayError(err).message, provider: p.adapter.name }, 'model list of one provider failed');
              return [];
            }
          }),
      );
      const seen = new Set<string>();
      const search = q.search?.toLowerCase();
      const data: ListedModel[] = [];
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
