import { GatewayError } from '../errors/gateway-error.js';
import type { ProviderAdapter, ProviderTarget } from '../providers/provider.js';
import type { CompiledNode } from './compiled-config.js';
import type { RouteInput } from './route-input.js';

/** A stored provider credential as the hot path sees it. */
export interface ResolvedVirtualKey {
  provider: string;
  secret: string;
  config: Record<string, unknown>;
  /** The integration it uses, when it uses one. */
  integrationId?: string;
  /** The integration's model list: with `allowAll` false only `enabled` models may be called; `hosts` are per-model custom hosts. */
  models?: { allowAll: boolean; enabled: ReadonlySet<string>; hosts: ReadonlyMap<string, string> };
  /** The integration's `pricing_adjustments.multiplier`. */
  pricingMultiplier?: number;
}

export interface TargetResolverDeps {
  getProvider(name: string): ProviderAdapter | undefined;
  /** Looks a virtual key up by id or slug within the request's workspace. */
  getVirtualKey(idOrSlug: string, workspaceId: string): ResolvedVirtualKey | undefined;
}

/** Headers never forwarded to a provider, whatever `forward_headers` says. */
const NEVER_FORWARD = /^(x-gateway-|x-forwarded-|host$|connection$|content-length$|transfer-encoding$|keep-alive$|upgrade$|te$|trailer$|proxy-)/;

/**
 * Resolves a leaf into the provider adapter and the target it calls: config keys first, then a
 * virtual key (config `virtual_key`, provider `@slug`, or `x-gateway-virtual-key`), then the request's
 * `x-gateway-provider` / `Authorization` / `x-gateway-custom-host` headers.
 */
export function resolveTarget(node: CompiledNode, input: RouteInput, deps: TargetResolverDeps): { adapter: ProviderAdapter; target: ProviderTarget; model?: string } {
  const leaf = node.leaf!;
  let providerName = leaf.provider;
  let vkRef = leaf.virtualKey;
  if (providerName?.startsWith('@')) {
    vkRef = providerName.slice(1);
    providerName = undefined;
  }
  // `"model": "@<slug>/<model>"` names the provider when the config does not; the prefix never goes upstream.
  // File and batch routes resolve a target without a body.
  const rawModel = (input.body as Record<string, unknown> | undefined)?.model;
  const prefixed = typeof rawModel === 'string' && rawModel.startsWith('@') ? MODEL_PREFIX.exec(rawModel) : null;
  let model = prefixed ? prefixed[2] : undefined;
  if (prefixed && !providerName && !vkRef) vkRef = prefixed[1];
  if (!providerName && !vkRef) {
    const fromHeader = input.headerTarget.provider;
    if (fromHeader?.startsWith('@')) vkRef = fromHeader.slice(1);
    else if (fromHeader) providerName = fromHeader;
    else if (input.headerTarget.virtualKey) vkRef = input.headerTarget.virtualKey;
  }
  let vk: ResolvedVirtualKey | undefined;
  if (vkRef) {
    vk = deps.getVirtualKey(vkRef, input.workspaceId);
    // Unknown and another workspace's are the same answer: 404.
    if (!vk) throw new GatewayError('not_found', `Unknown virtual key or provider slug '${vkRef}' (${node.path}).`, { param: 'virtual_key' });
    providerName = providerName ?? vk.provider;
  }
  if (!providerName) {
    throw new GatewayError('invalid_request', 'No provider for this request: send x-gateway-provider with Authorization: Bearer <provider key>, x-gateway-virtual-key, or a config naming a provider.', {
      param: 'provider',
    });
  }
  const adapter = deps.getProvider(providerName);
  if (!adapter) throw new GatewayError('invalid_request', `Unknown provider '${providerName}'.`, { param: 'provider' });
  const config = vk ? { ...vk.config, ...leaf.config } : leaf.config;
  const effectiveModel = model ?? (typeof node.overrideParams?.model === 'string' ? node.overrideParams.model : typeof rawModel === 'string' ? rawModel : undefined);
  const modelHost = vk?.models && effectiveModel !== undefined ? checkModel(vk.models, effectiveModel, vkRef!) : undefined;
  const target: ProviderTarget = {
    provider: adapter.name,
    apiKey: leaf.apiKey ?? vk?.secret ?? input.headerTarget.apiKey,
    customHost: leaf.customHost ?? modelHost ?? (typeof vk?.config.custom_host === 'string' ? vk.config.custom_host : undefined) ?? input.headerTarget.customHost,
    config,
    forwardHeaders: pickForwardHeaders(input, node.forwardHeaders),
  };
  return model === undefined ? { adapter, target } : { adapter, target, model };
}

/** `@<slug>/<model>`: the provider slug and the model sent upstream. */
const MODEL_PREFIX = /^@([^/\s]+)\/(.+)$/s;

/** Refuses a model the integration does not enable (with `allow_all_models: false`); returns its custom host, if any. */
function checkModel(models: NonNullable<ResolvedVirtualKey['models']>, model: string, ref: string): string | undefined {
  if (!models.allowAll && !models.enabled.has(model)) throw new GatewayError('invalid_request', `Model '${model}' is not enabled for provider '@${ref}'.`, { param: 'model' });
  return models.hosts.get(model);
}

function pickForwardHeaders(input: RouteInput, fromConfig: readonly string[] | null): Record<string, string> {
  const names = fromConfig ?? input.forwardHeaderNames;
  if (!names || names.length === 0) return EMPTY;
  const out: Record<string, string> = {};
  for (const name of names) {
    const n = name.toLowerCase();
    if (NEVER_FORWARD.test(n)) continue;
    const v = input.headers[n];
    if (typeof v === 'string') out[n] = v;
    else if (Array.isArray(v)) out[n] = v.join(', ');
  }
  return out;
}

const EMPTY: Record<string, string> = Object.freeze({}) as Record<string, string>;
