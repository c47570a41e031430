import { asProviderFailure } from '../../../foundation/errors/provider-failure.js';
import { readBodyText } from '../../../foundation/lib/http-client.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { startsLikeJson, tryParseJson } from '../../../foundation/lib/json.js';
import type { UpstreamResponse } from '../../../foundation/lib/http-client.js';
import type { ProviderAdapter, ProviderResourceApi, ProviderResourceKind, ProviderTarget } from '../../../providers/provider.js';
import { compileConfig } from '../../../routing/compile-config.js';
import type { CompiledNode } from '../../../routing/compiled-config.js';
import { CustomHostGuard } from '../../../routing/custom-host-guard.js';
import { resolveTarget } from '../../../routing/resolve-target.js';
import type { RouteInput } from '../../../routing/route-input.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { readGatewayHeaders } from '../../pipeline/read-gateway-headers.js';
import { resolveConfig } from '../../pipeline/resolve-config.js';

const HEADER_ONLY: CompiledNode = compileConfig({}).root;

/** The provider a files / batches / fine-tuning request names, resolved like a data-plane request's first target. */
export interface ResourceTarget {
  adapter: ProviderAdapter;
  target: ProviderTarget;
  /** The provider's resource API when it serves the kind asked for. */
  api?: ProviderResourceApi;
  /** The virtual key the request used (recorded on mapping rows so later calls can route without headers). */
  virtualKey: string | null;
}

/** What a mapping row remembers about a provider-held resource. */
export interface RememberedTarget {
  provider: string | null;
  virtual_key: string | null;
}

function firstLeaf(node: CompiledNode): CompiledNode {
  return node.leaf ? node : firstLeaf(node.children[0]!);
}

/**
 * Resolves the provider a resource request names: the first target of its config (`x-gateway-config`), a
 * virtual key, or `x-gateway-provider` with `Authorization`; a remembered mapping fills what the request
 * leaves out. Returns null when nothing names a provider (the gateway serves the request itself).
 */
export function resolveResourceTarget(
  deps: GatewayDeps,
  headers: IncomingHttpHeaders,
  workspaceId: string,
  kind: ProviderResourceKind,
  remembered?: RememberedTarget,
): ResourceTarget | null {
  const gh = readGatewayHeaders(headers);
  const config = resolveConfig(gh.config, workspaceId, deps.runtime.current, deps.configs);
  const node = firstLeaf(config?.root ?? HEADER_ONLY);
  const headerTarget = { ...gh.target };
  const named = node.leaf!.provider || node.leaf!.virtualKey || headerTarget.provider || headerTarget.virtualKey;
  if (!named && remembered) {
    if (remembered.virtual_key) headerTarget.virtualKey = remembered.virtual_key;
    else if (remembered.provider) headerTarget.provider = remembered.provider;
  }
  if (!node.leaf!.provider && !node.leaf!.virtualKey && !headerTarget.provider && !headerTarget.virtualKey) return null;
  const input = {
    headers,
    headerTarget,
    workspaceId,
    forwardHeaderNames: gh.forwardHeaderNames,
  } as Pick<RouteInput, 'headers' | 'headerTarget' | 'workspaceId' | 'forwardHeaderNames'> as RouteInput;
  const { adapter, target } = resolveTarget(node, input, deps.targets);
  const api = adapter.resources?.kinds.includes(kind) ? adapter.resources : undefined;
  const virtualKey =
    node.leaf!.virtualKey ?? (headerTarget.provider?.startsWith('@') ? headerTarget.provider.slice(1) : headerTarget.virtualKey) ?? null;
  return { adapter, target, api, virtualKey };
}

/** One forwarded call. */
export interface ResourceCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below the API root with its query, e.g. `/files?limit=2`. */
  path: string;
  body?: string | Readable;
  contentType?: string;
  signal?: AbortSignal;
}

/** Forwards resource calls to providers: custom-host vetting, the provider's URL and auth, its error mapping. */
export class ResourceForwarder {
  private readonly guard: CustomHostGuard;

  constructor(private readonly deps: GatewayDeps) {
    this.guard = new CustomHostGuard(deps.http.outbound);
  }

  /** Sends the call; resolves with the 2xx response (body unread); throws the provider's mapped error otherwise. */
  async send(rt: ResourceTarget, call: ResourceCall): Promise<UpstreamResponse> {
    if (!rt.api)
      throw new GatewayError('invalid_request', `Provider '${rt.adapter.name}' has no API for this resource.`, { param: 'provider' });
    if (rt.target.customHost) await this.guard.check(rt.target.customHost);
    const signal = call.signal ?? new AbortController().signal;
    const built = await rt.api.buildCall(call.path, {
      target: rt.target,
      stream: false,
      signal,
      http: this.deps.http,
      clock: this.deps.clock,
    });
    const headers = { ...built.headers, ...(call.contentType ? { 'content-type': call.contentType } : {}) };
    const res = await this.deps.http.send({ url: built.url, method: call.method, headers, body: call.body, signal }, rt.adapter.name);
    if (res.status >= 200 && res.status < 300) return res;
    const text = await readBodyText(res, rt.adapter.name);
    throw asProviderFailure(rt.adapter.mapError(res.status, text, res.headers), rt.adapter.name);
  }

  /**
   * Reads a 2xx answer of `send` that is relayed to the client as JSON: a body that is not JSON (an HTML
   * page from a proxy, a captive portal) is 502 `provider_error` instead of a 200 the client cannot parse.
   */
  async relayText(rt: ResourceTarget, res: UpstreamResponse): Promise<string> {
    const text = await readBodyText(res, rt.adapter.name);
    if (!startsLikeJson(text))
      throw new GatewayError('provider_error', 'The provider answered with a body that is not JSON.', {
        provider: rt.adapter.name,
        status: 502,
      });
    return text;
  }

  /** Sends the call and parses the JSON answer. */
  async json(rt: ResourceTarget, call: ResourceCall): Promise<Record<string, unknown>> {
    const res = await this.send(rt, call);
    const text = await readBodyText(res, rt.adapter.name);
    const parsed = tryParseJson(text);
    if (!parsed || typeof parsed !== 'object')
      throw new GatewayError('provider_error', 'The provider answered with a body that is not JSON.', {
        provider: rt.adapter.name,
        status: 502,
      });
    return parsed as Record<string, unknown>;
  }
}
