import type { UsageLimitPolicy, UsageLimitType } from '../../infra/store/repos/usage-limit-policies.js';
import { compileConditions, factOf, memoByValue } from './compiled-policy.js';
import type { RequestFacts } from './request-facts.js';
import { usageWindow, type ResetSchedule, type UsageWindow } from './usage-window.js';

/** A usage-limit policy ready for the hot path. */
export interface CompiledUsagePolicy {
  id: string;
  name: string | null;
  workspaceId: string;
  type: UsageLimitType;
  /** `counterIdOf(id, type)`, built once. */
  counterId: string;
  limit: number;
  alertAt: number | null;
  conditions: ReadonlyMap<string, ReadonlySet<string>>;
  groupBy: readonly string[];
  schedule: ResetSchedule;
  /** The window last computed (recomputed only once it has ended). */
  window: UsageWindow;
}

/**
 * The counters' identity of a policy: its id and type, so changing a policy's type (requests to
 * dollars, ...) starts its groups from zero rather than reading one unit as another.
 */
export function counterIdOf(id: string, type: UsageLimitType): string {
  return `${id}:${type}`;
}

/** The schedule of a stored policy. */
export function scheduleOf(p: UsageLimitPolicy): ResetSchedule {
  return {
    periodicReset: p.periodic_reset,
    periodicResetDays: p.periodic_reset_days,
    anchor: p.next_usage_reset_at,
    createdAt: p.created_at,
  };
}

/** Compiles a stored policy: conditions grouped by key, its current window computed once. */
export function compileUsagePolicy(p: UsageLimitPolicy, now: number): CompiledUsagePolicy {
  const schedule = scheduleOf(p);
  return {
    id: p.id,
    name: p.name,
    workspaceId: p.workspace_id,
    type: p.type,
    counterId: counterIdOf(p.id, p.type),
    limit: p.credit_limit,
    alertAt: p.alert_threshold,
    conditions: compileConditions(p.conditions),
    groupBy: p.group_by.map((g) => g.key),
    schedule,
    window: usageWindow(schedule, now),
  };
}

/** The policy's window at `now`: the cached one while it lasts, else the next (cached in its place). */
export function currentWindow(p: CompiledUsagePolicy, now: number): UsageWindow {
  const w = p.window;
  if (now >= w.start && (w.resetAt === null || now < w.resetAt)) return w;
  p.window = usageWindow(p.schedule, now);
  return p.window;
}

/**
 * The request's group under the policy: JSON of its group-by values in the policy's order (a missing
 * value is the empty string); `{}` without group_by. Entities show it parsed.
 */
export function groupOf(p: CompiledUsagePolicy, f: RequestFacts): string {
  if (p.groupBy.length === 0) return '{}';
  if (p.groupBy.length === 1) return memoByValue(groups, p, factOf(p.groupBy[0]!, f) ?? '', buildGroup, f);
  return buildGroup(p, f);
}

const groups = new WeakMap<object, Map<string, string>>();

function buildGroup(p: CompiledUsagePolicy, f: RequestFacts): string {
  const g: Record<string, string> = {};
  for (const k of p.groupBy) g[k] = factOf(k, f) ?? '';
  return JSON.stringify(g);
}
