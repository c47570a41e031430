import type { ConfigObject } from './config-schema.js';

export type StrategyMode = 'single' | 'loadbalance' | 'fallback' | 'conditional';

export interface RetrySettings {
  attempts: number;
  onStatusCodes: ReadonlySet<number>;
  useRetryAfter: boolean;
}

export interface CircuitSettings {
  failureThreshold: number;
  cooldownMs: number;
  /** Counted statuses; null means every status ≥ 500. */
  failureStatusCodes: ReadonlySet<number> | null;
}

export interface CacheSettings {
  mode: 'simple' | 'semantic';
  maxAgeSeconds: number;
}

/** What a leaf target names: its provider and credentials, before request headers fill gaps. */
export interface LeafSettings {
  provider?: string;
  apiKey?: string;
  customHost?: string;
  virtualKey?: string;
  /** The leaf's own config keys (provider-specific settings live here). */
  config: Readonly<Record<string, unknown>>;
  /** Stable identity of this target for circuit state shared between replicas. */
  identity: string;
}

/**
 * One node of a compiled config: strategy nodes have children, leaves have `leaf`. Inheritable
 * settings (retry, cache, request_timeout, override_params, cb_config, forward_headers,
 * strict_compat_compliance) are already resolved from the ancestors.
 */
export interface CompiledNode {
  /** JSON path of the node, e.g. `config.targets[1].targets[0]`. */
  path: string;
  name?: string;
  mode: StrategyMode | 'leaf';
  children: CompiledNode[];
  /** loadbalance: weight of each child. */
  weights: number[];
  /** fallback: statuses that move on to the next target; null = any failure. */
  fallbackCodes: ReadonlySet<number> | null;
  /** conditional: queries with the index of the child they select. */
  conditions: Array<{ query: Record<string, unknown>; then: number }>;
  defaultIndex: number;
  retry: RetrySettings | null;
  cache: CacheSettings | null;
  requestTimeoutMs: number | null;
  overrideParams: Readonly<Record<string, unknown>> | null;
  cb: CircuitSettings | null;
  forwardHeaders: readonly string[] | null;
  strict: boolean;
  /** The node's own config object (guardrails and hooks are read from here). */
  raw: ConfigObject;
  leaf?: LeafSettings;
}

/** A validated, compiled config, ready for the hot path. */
export interface CompiledConfig {
  root: CompiledNode;
  /** Hash of the config's canonical JSON. */
  hash: string;
  /** Stored config id when it came from the store. */
  id?: string;
  promptId?: string;
  source: ConfigObject;
}
