import { GatewayError } from '../foundation/errors/gateway-error.js';
import type { ProviderAdapter, ProviderTarget } from '../providers/provider.js';
import type { CompiledNode } from './compiled-config.js';
import type { RouteInput } from './route-input.js';
import type { PricingTerms } from '../infra/pricing/price-config.js';
import { pickMember } from '../infra/secrets/secret-source.js';

/** A stored provider credential as the hot path sees it. */
export interface ResolvedVirtualKey {
  provider: string;
  secret: string;
  config: Record<string, unknown>;
  /** The integration it uses, when it uses one. */
  integrationId?: string;
  /** The integration's model list: with `allowAll` false only `enabled` models may be called; `hosts` are per-model custom hosts. */
  models?: { allowAll: boolean; enabled: ReadonlySet<string>; hosts: ReadonlyMap<string, string> };
  /** The integration's `pricing_adjustments.multiplier` and its models' `pricing_config` / `base_model_slug`. */
  pricing?: PricingTerms;
  /** The integration's `secret_mappings`: fields filled from secret references when a request uses the key. */
  secretMappings?: readonly SecretMappingOf[];
}

/** One secret mapping as the hot path applies it: `key` or `configurations.<field>` ← a reference's value (a member of it for `json`). */
export interface SecretMappingOf {
  target: string;
  refId: string;
  format: 'string' | 'json';
  secretKey?: string;
}

export interface TargetResolverDeps {
  getProvider(name: string): ProviderAdapter | undefined;
  /** Looks a virtual key up by id or slug within the request's workspace. */
  getVirtualKey(idOrSlug: string, workspaceId: string): ResolvedVirtualKey | undefined;
  /**
   * The cached value of a secret reference for a request of this workspace, read without I/O; throws
   * 502 naming the reference when none is cached (or the reference is not usable by the workspace).
   */
  secretValue?(refId: string, workspaceId: string): string;
}

/** A mapped secret's value: the whole text, or for `json` the member `secretKey` (502 naming the reference when it is missing). */
function mappedValue(m: SecretMappingOf, text: string): string {
  if (m.format !== 'json' || !m.secretKey) return text;
  try {
    return pickMember(text, m.secretKey);
  } catch (err) {
    throw new GatewayError('provider_unreachable', `Secret reference '${m.refId}' cannot fill ${m.target}: ${(err as Error).message}.`, {
      param: 'secret_reference_id',
    });
  }
}

/** The key and config of a virtual key with its secret mappings applied (values read from the resolver's cache). */
function withSecrets(vk: ResolvedVirtualKey, deps: TargetResolverDeps, workspaceId: string): ResolvedVirtualKey {
  const mappings = vk.secretMappings;
  if (!mappings?.length) return vk;
  let secret = vk.secret;
  const config = { ...vk.config };
  for (const m of mappings) {
    if (!deps.secretValue)
      throw new GatewayError(
        'provider_unreachable',
        `Secret reference '${m.refId}' cannot be resolved: no secret resolver is configured.`,
        { param: 'secret_reference_id' },
      );
    const value = mappedValue(m, deps.secretValue(m.refId, workspaceId));
    if (m.target === 'key') secret = value;
    else config[m.target.slice('configurations.'.length)] = value;
  }
  return { ...vk, secret, config };
}

/** Headers never forwarded to a provider, whatever `forward_headers` says. */
const NEVER_FORWARD =
  /^(x-gateway-|x-forwarded-|host$|connection$|content-length$|transfer-encoding$|keep-alive$|upgrade$|te$|trailer$|proxy-)/;

/** A leaf's provider, the target it calls, and what the call needs besides. */
export interface ResolvedTarget {
  adapter: ProviderAdapter;
  target: ProviderTarget;
  model?: string;
  pricing?: PricingTerms;
  secretRefs?: readonly string[];
}

/**
 * Resolves a leaf into the provider adapter and the target it calls: config keys first, then a
 * virtual key (config `virtual_key`, provider `@slug`, or `x-gateway-virtual-key`), then the request's
 * `x-gateway-provider` / `Authorization` / `x-gateway-custom-host` headers.
 */
export function resolveTarget(node: CompiledNode, input: RouteInput, deps: TargetResolverDeps): ResolvedTarget {
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
    if (!vk)
      throw new GatewayError('not_found', `Unknown virtual key or provider slug '${vkRef}' (${node.path}).`, { param: 'virtual_key' });
    vk = withSecrets(vk, deps, input.workspaceId);
    providerName = providerName ?? vk.provider;
  }
  if (!providerName) {
    throw new GatewayError(
      'invalid_request',
      'No provider for this request: send x-gateway-provider with Authorization: Bearer <provider key>, x-gateway-virtual-key, or a config naming a provider.',
      {
        param: 'provider',
      },
    );
  }
  const adapter = deps.getProvider(providerName);
  if (!adapter) throw new GatewayError('invalid_request', `Unknown provider '${providerName}'.`, { param: 'provider' });
  const config = vk ? { ...vk.config, ...leaf.config } : leaf.config;
  const effectiveModel =
    model ??
    (typeof node.overrideParams?.model === 'string' ? node.overrideParams.model : typeof rawModel === 'string' ? rawModel : undefined);
  const modelHost = vk?.models && effectiveModel !== undefined ? checkModel(vk.models, effectiveModel, vkRef!) : undefined;
  const target: ProviderTarget = {
    provider: adapter.name,
    apiKey: leaf.apiKey ?? vk?.secret ?? input.headerTarget.apiKey,
    customHost:
      leaf.customHost ??
      modelHost ??
      (typeof vk?.config.custom_host === 'string' ? vk.config.custom_host : undefined) ??
      input.headerTarget.customHost,
    config,
    forwardHeaders: pickForwardHeaders(input, node.forwardHeaders),
  };
  // Pricing terms and secret references only when the provider has them (nothing is allocated otherwise).
  if (!vk?.pricing && !vk?.secretMappings?.length) return model === undefined ? { adapter, target } : { adapter, target, model };
  const extra = {
    ...(vk.pricing ? { pricing: vk.pricing } : {}),
    ...(vk.secretMappings?.length ? { secretRefs: vk.secretMappings.map((m) => m.refId) } : {}),
  };
  return model === undefined ? { adapter, target, ...extra } : { adapter, target, model, ...extra };
}

/** `@<slug>/<model>`: the provider slug and the model sent upstream. */
const MODEL_PREFIX = /^@([^/\s]+)\/(.+)$/s;

/** Refuses a model the integration does not enable (with `allow_all_models: false`); returns its custom host, if any. */
function checkModel(models: NonNullable<ResolvedVirtualKey['models']>, model: string, ref: string): string | undefined {
  if (!models.allowAll && !models.enabled.has(model))
    throw new GatewayError('invalid_request', `Model '${model}' is not enabled for provider '@${ref}'.`, { param: 'model' });
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
