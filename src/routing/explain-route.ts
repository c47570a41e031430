import type { CompiledNode } from './compiled-config.js';
import { matchesQuery } from './conditional-query.js';

/** The request an explanation is made for (what conditional routing can look at). */
export interface ExplainRequest {
  model?: string;
  metadata?: Record<string, string>;
  /** Body fields (`params.<field>` in conditions); `model` is added when given apart. */
  params?: Record<string, unknown>;
  /** `url.pathname` in conditions; default `/v1/chat/completions`. */
  path?: string;
}

/** A target's circuit as the breaker sees it now. */
export interface CircuitView {
  state: 'closed' | 'open' | 'half_open';
  failures: number;
}

/** One node visited by the explanation. */
export interface ExplainedNode {
  path: string;
  name?: string;
  mode: CompiledNode['mode'];
  /** The chance this node is reached by a request like this one (0 for fallbacks, tried only on failure). */
  probability: number;
  /** conditional: every condition with its result; the first that holds selects its target. */
  conditions?: Array<{ query: Record<string, unknown>; then: string; matched: boolean }>;
  /** conditional: the target chosen (by a condition, the default, or none: the request is refused). */
  chosen?: string | null;
  /** conditional: why that target. */
  reason?: string;
  /** loadbalance: each child's weight and chance (open circuits are skipped, so they get 0). */
  weights?: Array<{ path: string; weight: number; chance: number }>;
  /** fallback: the order targets are tried in, and the statuses that move on (null: any failure). */
  order?: string[];
  on_status_codes?: number[] | null;
  /** Leaves with a circuit breaker: its state. */
  circuit?: CircuitView;
}

/** A leaf the request can reach, with the settings it inherits. */
export interface ExplainedTarget {
  path: string;
  name?: string;
  provider: string | null;
  virtual_key: string | null;
  custom_host: string | null;
  /** The model sent: `override_params.model`, else the request's. */
  model: string | null;
  probability: number;
  /** `primary` (tried first) or `fallback` (tried only when an earlier target failed). */
  role: 'primary' | 'fallback';
  circuit?: CircuitView;
  settings: {
    retry: { attempts: number; on_status_codes: number[]; use_retry_after_headers: boolean } | null;
    request_timeout: number | null;
    cache: { mode: string; max_age: number } | null;
    cb_config: { failure_threshold: number; cooldown_interval: number } | null;
    override_params: Record<string, unknown> | null;
    forward_headers: readonly string[] | null;
    strict_compat_compliance: boolean;
    /** Guardrails and hooks of the leaf and its ancestors, each with the path that declares it. */
    guardrails: Array<{ list: string; path: string; item: unknown }>;
  };
}

export interface Explanation {
  /** Every leaf the request can reach, most likely first. */
  targets: ExplainedTarget[];
  /** Every node visited, in walk order. */
  nodes: ExplainedNode[];
}

const GUARDRAIL_LISTS = ['input_guardrails', 'output_guardrails', 'before_request_hooks', 'after_request_hooks'] as const;

/**
 * Explains, without calling any provider, how the routing engine would route a request: conditions are
 * evaluated as `execute.ts` does (first match, else `default`), loadbalance children get weight / total
 * of the children whose circuit is not open, a fallback's first available child is the primary and the
 * others are fallbacks (probability 0), and each reachable leaf shows the settings it inherits.
 * `circuit` reads a leaf's breaker state (only for leaves with `cb_config`).
 */
export async function explainRoute(
  root: CompiledNode,
  request: ExplainRequest,
  circuit: (leaf: CompiledNode) => Promise<CircuitView>,
): Promise<Explanation> {
  const params = { ...(request.params ?? {}), ...(request.model !== undefined ? { model: request.model } : {}) };
  const ctx = { metadata: request.metadata ?? {}, params, url: { pathname: request.path ?? '/v1/chat/completions' } };
  const nodes: ExplainedNode[] = [];
  const targets: ExplainedTarget[] = [];
  const circuits = new Map<CompiledNode, CircuitView>();
  const circuitOf = async (leaf: CompiledNode): Promise<CircuitView | undefined> => {
    if (!leaf.cb || !leaf.leaf) return undefined;
    let view = circuits.get(leaf);
    if (!view) circuits.set(leaf, (view = await circuit(leaf)));
    return view;
  };
  const isOpen = async (n: CompiledNode) => n.mode === 'leaf' && (await circuitOf(n))?.state === 'open';

  const walk = async (node: CompiledNode, probability: number, role: 'primary' | 'fallback', ancestors: CompiledNode[]): Promise<void> => {
    const entry: ExplainedNode = { path: node.path, ...(node.name ? { name: node.name } : {}), mode: node.mode, probability };
    nodes.push(entry);
    const chain = [...ancestors, node];
    switch (node.mode) {
      case 'leaf': {
        const view = await circuitOf(node);
        if (view) entry.circuit = view;
        targets.push(describeLeaf(node, chain, probability, role, view, params.model));
        return;
      }
      case 'single':
        return walk(node.children[0]!, probability, role, chain);
      case 'conditional': {
        const conditions = await Promise.all(
          node.conditions.map(async (c) => ({
            query: c.query,
            then: node.children[c.then]?.path ?? '',
            matched: await matchesQuery(c.query, ctx),
          })),
        );
        entry.conditions = conditions;
        const first = conditions.findIndex((c) => c.matched);
        const index = first >= 0 ? node.conditions[first]!.then : node.defaultIndex;
        if (index < 0) {
          entry.chosen = null;
          entry.reason = 'no condition matched and no default is set: the request is refused (400)';
          return;
        }
        const child = node.children[index]!;
        entry.chosen = child.path;
        entry.reason = first >= 0 ? `condition ${first} matched` : 'no condition matched: the default';
        return walk(child, probability, role, chain);
      }
      case 'loadbalance': {
        const usable = await Promise.all(
          node.children.map(async (c, i) => (node.weights[i]! > 0 && !(await isOpen(c)) ? node.weights[i]! : 0)),
        );
        const total = usable.reduce((a, b) => a + b, 0);
        entry.weights = node.children.map((c, i) => ({
          path: c.path,
          weight: node.weights[i]!,
          chance: total > 0 ? usable[i]! / total : 0,
        }));
        for (const [i, child] of node.children.entries())
          if (node.weights[i]! > 0) await walk(child, total > 0 ? (probability * usable[i]!) / total : 0, role, chain);
        return;
      }
      case 'fallback': {
        entry.order = node.children.map((c) => c.path);
        entry.on_status_codes = node.fallbackCodes ? [...node.fallbackCodes] : null;
        let primary = -1;
        for (const [i, child] of node.children.entries()) if (primary < 0 && !(await isOpen(child))) primary = i;
        for (const [i, child] of node.children.entries())
          await walk(child, i === primary ? probability : 0, i === primary ? role : 'fallback', chain);
        return;
      }
    }
  };
  await walk(root, 1, 'primary', []);
  targets.sort((a, b) => b.probability - a.probability || (a.role === b.role ? 0 : a.role === 'primary' ? -1 : 1));
  return { targets, nodes };
}

function describeLeaf(
  node: CompiledNode,
  chain: CompiledNode[],
  probability: number,
  role: 'primary' | 'fallback',
  circuit: CircuitView | undefined,
  requestModel: unknown,
): ExplainedTarget {
  const leaf = node.leaf!;
  const overrideModel = node.overrideParams?.model;
  const model = typeof overrideModel === 'string' ? overrideModel : typeof requestModel === 'string' ? requestModel : null;
  const guardrails: ExplainedTarget['settings']['guardrails'] = [];
  for (const n of chain) {
    for (const list of GUARDRAIL_LISTS) {
      const items = (n.raw as Record<string, unknown>)[list];
      if (Array.isArray(items)) for (const item of items) guardrails.push({ list, path: n.path, item });
    }
  }
  return {
    path: node.path,
    ...(node.name ? { name: node.name } : {}),
    provider: leaf.provider ?? null,
    virtual_key: leaf.virtualKey ?? null,
    custom_host: leaf.customHost ?? null,
    model,
    probability,
    role,
    ...(circuit ? { circuit } : {}),
    settings: {
      retry: node.retry
        ? {
            attempts: node.retry.attempts,
            on_status_codes: [...node.retry.onStatusCodes],
            use_retry_after_headers: node.retry.useRetryAfter,
          }
        : null,
      request_timeout: node.requestTimeoutMs,
      cache: node.cache ? { mode: node.cache.mode, max_age: node.cache.maxAgeSeconds } : null,
      cb_config: node.cb ? { failure_threshold: node.cb.failureThreshold, cooldown_interval: node.cb.cooldownMs } : null,
      override_params: node.overrideParams ? { ...node.overrideParams } : null,
      forward_headers: node.forwardHeaders,
      strict_compat_compliance: node.strict,
      guardrails,
    },
  };
}
