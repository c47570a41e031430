import { GatewayError } from '../foundation/errors/gateway-error.js';
import { canonicalJson } from '../foundation/lib/json.js';
import { sha256Hex } from '../foundation/lib/hash.js';
import type { ConfigObject } from './config-schema.js';
import type { CacheSettings, CircuitSettings, CompiledConfig, CompiledNode, RetrySettings } from './compiled-config.js';
import { queryProblem } from './conditional-query.js';

/** Retry statuses when `on_status_codes` is absent (decisions.md). */
export const DEFAULT_RETRY_CODES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
/** Cache `max_age` default: 7 days (decisions.md). */
export const DEFAULT_CACHE_MAX_AGE_S = 7 * 24 * 3600;

const STRUCTURAL_KEYS = new Set([
  'strategy',
  'targets',
  'name',
  'weight',
  'on_status_codes',
  'retry',
  'cache',
  'cb_config',
  'request_timeout',
  'override_params',
  'forward_headers',
  'strict_compat_compliance',
  'before_request_hooks',
  'after_request_hooks',
  'input_guardrails',
  'output_guardrails',
  'prompt_id',
]);

interface Inherited {
  retry: RetrySettings | null;
  cache: CacheSettings | null;
  requestTimeoutMs: number | null;
  overrideParams: Record<string, unknown> | null;
  cb: CircuitSettings | null;
  forwardHeaders: readonly string[] | null;
  strict: boolean;
}

/**
 * Compiles a validated config into a node tree with inherited settings resolved
 * (decisions.md, "Settings nest"). `scope` makes circuit identities unique per stored config.
 */
export function compileConfig(config: ConfigObject, scope?: { id?: string }): CompiledConfig {
  const hash = sha256Hex(canonicalJson(config));
  const root = compileNode(
    config,
    'config',
    { retry: null, cache: null, requestTimeoutMs: null, overrideParams: null, cb: null, forwardHeaders: null, strict: false },
    scope?.id ?? hash,
  );
  return { root, hash, id: scope?.id, promptId: config.prompt_id, source: config };
}

function compileNode(raw: ConfigObject, path: string, parent: Inherited, scope: string): CompiledNode {
  const own: Inherited = {
    retry: raw.retry
      ? {
          attempts: raw.retry.attempts,
          onStatusCodes: raw.retry.on_status_codes ? new Set(raw.retry.on_status_codes) : DEFAULT_RETRY_CODES,
          useRetryAfter: raw.retry.use_retry_after_headers === true,
        }
      : parent.retry,
    cache: raw.cache ? { mode: raw.cache.mode, maxAgeSeconds: raw.cache.max_age ?? DEFAULT_CACHE_MAX_AGE_S } : parent.cache,
    requestTimeoutMs: raw.request_timeout ?? parent.requestTimeoutMs,
    overrideParams: raw.override_params ? { ...(parent.overrideParams ?? {}), ...raw.override_params } : parent.overrideParams,
    cb: raw.cb_config
      ? {
          failureThreshold: raw.cb_config.failure_threshold,
          cooldownMs: raw.cb_config.cooldown_interval,
          failureStatusCodes: raw.cb_config.failure_status_codes ? new Set(raw.cb_config.failure_status_codes) : null,
        }
      : parent.cb,
    forwardHeaders: raw.forward_headers ? raw.forward_headers.map((h) => h.toLowerCase()) : parent.forwardHeaders,
    strict: raw.strict_compat_compliance ?? parent.strict,
  };
  const node: CompiledNode = {
    path,
    name: raw.name,
    mode: 'leaf',
    children: [],
    weights: [],
    fallbackCodes: null,
    conditions: [],
    defaultIndex: -1,
    ...own,
    raw,
  };
  if (raw.targets && raw.strategy) {
    node.mode = raw.strategy.mode;
    node.children = raw.targets.map((t, i) => compileNode(t, `${path}.targets[${i}]`, own, scope));
    node.weights = raw.targets.map((t) => t.weight ?? 1);
    if (node.mode === 'loadbalance' && !node.weights.some((w) => w > 0)) {
      throw new GatewayError('invalid_config', `Invalid config: ${path}.targets needs at least one target with weight above 0`, {
        param: `${path}.targets`,
      });
    }
    const codes = raw.strategy.on_status_codes;
    node.fallbackCodes = codes ? new Set(codes) : null;
    if (node.mode === 'conditional') {
      const index = (name: string) => raw.targets!.findIndex((t) => t.name === name);
      node.conditions = (raw.strategy.conditions ?? []).map((c, i) => {
        const query = c.query as Record<string, unknown>;
        const problem = queryProblem(query);
        if (problem)
          throw new GatewayError('invalid_config', `Invalid config: ${path}.strategy.conditions[${i}].query: ${problem}`, {
            param: `${path}.strategy.conditions[${i}].query`,
          });
        return { query, then: index(c.then) };
      });
      node.defaultIndex = raw.strategy.default === undefined ? -1 : index(raw.strategy.default);
    }
    return node;
  }
  const leafConfig: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!STRUCTURAL_KEYS.has(k)) leafConfig[k] = v;
  node.leaf = {
    provider: raw.provider,
    apiKey: raw.api_key,
    customHost: raw.custom_host,
    virtualKey: raw.virtual_key,
    config: leafConfig,
    identity: sha256Hex(
      `${scope}|${path}|${canonicalJson({ ...leafConfig, api_key: raw.api_key ? sha256Hex(raw.api_key) : undefined })}`,
    ).slice(0, 32),
  };
  return node;
}
