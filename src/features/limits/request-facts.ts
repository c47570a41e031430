import type { CompiledNode } from '../../routing/compiled-config.js';
import type { RuntimeSnapshot } from '../../runtime/snapshot.js';
import type { DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';

/** What conditions and group_by keys read from a data-plane request, before routing. */
export interface RequestFacts {
  workspaceId: string;
  workspaceSlug?: string;
  /** Id of the gateway key that authenticated the request. */
  apiKeyId?: string;
  /** The endpoint kind (`chat`, `completions`, `embeddings`, ...). */
  endpoint: string;
  model?: string;
  /** The provider, when it is known before routing (see `providerBeforeRouting`). */
  provider?: string;
  metadata: Readonly<Record<string, string>>;
}

function header(h: DataPlaneRequest['headers'], name: string): string | undefined {
  const v = h[name];
  const s = typeof v === 'string' ? v : Array.isArray(v) ? v[0] : undefined;
  return s?.trim() || undefined;
}

function leaves(node: CompiledNode, out: CompiledNode[] = []): CompiledNode[] {
  if (node.mode === 'leaf') out.push(node);
  for (const c of node.children) leaves(c, out);
  return out;
}

/**
 * The provider a request will reach, as far as it is known before routing: the config's leaves
 * (their `provider`, else their virtual key's provider, else the request headers), or without a
 * config `x-gateway-provider`, else the provider of `x-gateway-virtual-key`. When the config's leaves
 * name different providers (a load balance across providers), the provider is unknown.
 */
export function providerBeforeRouting(dp: DataPlaneRequest, snapshot: RuntimeSnapshot): string | undefined {
  const workspaceId = dp.ctx.workspaceId;
  const fromVirtualKey = (vk: string | undefined) => (vk ? snapshot.virtualKeys.get(`${workspaceId}:${vk}`)?.provider : undefined);
  const headerProvider = header(dp.headers, 'x-gateway-provider') ?? fromVirtualKey(header(dp.headers, 'x-gateway-virtual-key'));
  if (!dp.config) return headerProvider;
  const names = new Set(leaves(dp.config.root).map((l) => l.leaf?.provider ?? fromVirtualKey(l.leaf?.virtualKey) ?? headerProvider));
  if (names.size !== 1) return undefined;
  return [...names][0];
}

/** Where a request's facts are kept for its other limit hook (a slot of `dp.locals`: no WeakMap entry per request for the GC to trace). */
const FACTS = 'requestFacts';

interface ReadFacts {
  snapshot: RuntimeSnapshot;
  facts: RequestFacts;
}

/** Reads the facts of a request for policy matching (once per request and snapshot). */
export function requestFacts(dp: DataPlaneRequest, snapshot: RuntimeSnapshot): RequestFacts {
  const read = dp.locals[FACTS] as ReadFacts | undefined;
  if (read !== undefined && read.snapshot === snapshot) return read.facts;
  const facts = factsOf(dp, snapshot);
  dp.locals[FACTS] = { snapshot, facts } satisfies ReadFacts;
  return facts;
}

function factsOf(dp: DataPlaneRequest, snapshot: RuntimeSnapshot): RequestFacts {
  return {
    workspaceId: dp.ctx.workspaceId,
    workspaceSlug: snapshot.workspacesById.get(dp.ctx.workspaceId)?.slug,
    apiKeyId: dp.ctx.key?.id,
    endpoint: dp.endpoint,
    model: typeof dp.body.model === 'string' ? dp.body.model : undefined,
    provider: providerBeforeRouting(dp, snapshot),
    metadata: dp.metadata,
  };
}
