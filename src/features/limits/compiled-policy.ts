import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../../foundation/lib/hash.js';
import type { RateLimitPolicy, RateLimitType, RateLimitUnit } from '../../infra/store/repos/rate-limit-policies.js';
import { WINDOW_MS, canonicalEndpointType } from './policy-keys.js';
import type { RequestFacts } from './request-facts.js';

/** A policy ready for the hot path. */
export interface CompiledPolicy {
  id: string;
  workspaceId: string;
  type: RateLimitType;
  unit: RateLimitUnit;
  value: number;
  windowMs: number;
  /** Condition key → accepted values (conditions with the same key are alternatives). */
  conditions: ReadonlyMap<string, ReadonlySet<string>>;
  groupBy: readonly string[];
}

/** Compiles a stored policy: conditions grouped by key, endpoint types made canonical. */
export function compilePolicy(p: RateLimitPolicy): CompiledPolicy {
  const conditions = compileConditions(p.conditions);
  return {
    id: p.id,
    workspaceId: p.workspace_id,
    type: p.type,
    unit: p.unit,
    value: p.value,
    windowMs: WINDOW_MS[p.unit],
    conditions,
    groupBy: p.group_by.map((g) => g.key),
  };
}

/** Conditions grouped by key (alternatives of one key in a set), endpoint types made canonical. */
export function compileConditions(list: ReadonlyArray<{ key: string; value: string }>): Map<string, Set<string>> {
  const conditions = new Map<string, Set<string>>();
  for (const c of list) {
    const value = c.key === 'endpoint_type' ? (canonicalEndpointType(c.value) ?? c.value) : c.value;
    const set = conditions.get(c.key) ?? new Set<string>();
    set.add(value);
    conditions.set(c.key, set);
  }
  return conditions;
}

/** The request's value for a condition or group-by key (undefined when the request has none). */
export function factOf(key: string, f: RequestFacts): string | undefined {
  switch (key) {
    case 'workspace_id':
      return f.workspaceId;
    case 'api_key':
      return f.apiKeyId;
    case 'endpoint_type':
      return f.endpoint;
    case 'model':
      return f.model;
    case 'provider':
      return f.provider;
    default:
      return key.startsWith('metadata.') ? f.metadata[key.slice('metadata.'.length)] : undefined;
  }
}

/**
 * Whether the policy applies to the request: every condition key matches one of its values exactly
 * (`workspace_id` also matches the workspace slug). A key the request has no value for never matches.
 */
export function matchesPolicy(p: Pick<CompiledPolicy, 'conditions'>, f: RequestFacts): boolean {
  for (const [key, values] of p.conditions) {
    const v = factOf(key, f);
    if (v !== undefined && values.has(v)) continue;
    if (key === 'workspace_id' && f.workspaceSlug !== undefined && values.has(f.workspaceSlug)) continue;
    return false;
  }
  return true;
}

/**
 * The counter key of the request under the policy: the policy id, type and unit, and a hash of the
 * group-by values (a missing value counts as the empty string, so such requests share one bucket).
 */
export function counterKey(p: CompiledPolicy, f: RequestFacts): string {
  if (p.groupBy.length !== 1) return buildCounterKey(p, f);
  // One group-by key (the usual policy): the key per value is remembered on the compiled policy.
  return memoByValue(counterKeys, p, factOf(p.groupBy[0]!, f) ?? '', buildCounterKey, f);
}

function buildCounterKey(p: CompiledPolicy, f: RequestFacts): string {
  const base = `${p.id}:${p.type}:${p.unit}`;
  if (p.groupBy.length === 0) return base;
  const values = p.groupBy.map((k) => factOf(k, f) ?? '');
  return `${base}:${groupHash(JSON.stringify(values))}`;
}

const counterKeys = new WeakMap<object, Map<string, string>>();
/** Values remembered per compiled policy at most (a policy grouped by something unbounded, say a metadata value). */
const MEMO_PER_POLICY = 10_000;

/**
 * `make(policy, f)`'s answer for `value` under `policy` (no closure per call), remembered in `memo` (a compiled policy is replaced when
 * its stored one changes, so the memo goes with it); past `MEMO_PER_POLICY` values it starts over.
 */
export function memoByValue<P extends object>(
  memo: WeakMap<object, Map<string, string>>,
  policy: P,
  value: string,
  make: (p: P, f: RequestFacts) => string,
  f: RequestFacts,
): string {
  let byValue = memo.get(policy);
  if (byValue === undefined) memo.set(policy, (byValue = new Map()));
  let out = byValue.get(value);
  if (out === undefined) {
    if (byValue.size >= MEMO_PER_POLICY) byValue.clear();
    out = make(policy, f);
    byValue.set(value, out);
  }
  return out;
}

/** Recent group-by hashes: a gateway sees few distinct groups (keys, models), and SHA-256 per request showed in profiles. */
const groupHashes = new LRUCache<string, string>({ max: 10_000 });

function groupHash(text: string): string {
  let hash = groupHashes.get(text);
  if (hash === undefined) {
    hash = sha256Hex(text).slice(0, 24);
    groupHashes.set(text, hash);
  }
  return hash;
}
