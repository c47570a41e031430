import type { RuntimeSection } from '../../runtime/runtime.js';
import { listActiveUsageLimitPolicies, type UsageLimitPolicy } from '../../infra/store/repos/usage-limit-policies.js';
import { compileUsagePolicy, type CompiledUsagePolicy } from './compiled-usage-policy.js';

/** Name of the runtime snapshot section holding the active usage-limit policies. */
export const USAGE_LIMIT_SECTION = 'usage-limits';

/** The active usage-limit policies, compiled, by workspace id. */
export interface UsageLimitSection {
  byWorkspace: ReadonlyMap<string, readonly CompiledUsagePolicy[]>;
}

/** Loads the active policies: all of them, or (after a write naming its workspace) those of the workspaces changed. */
export const usageLimitSection: RuntimeSection<UsageLimitSection> = {
  name: USAGE_LIMIT_SECTION,
  async load(store) {
    return { byWorkspace: byWorkspace(new Map(), await listActiveUsageLimitPolicies(store)) };
  },
  async loadWorkspaces(store, previous, workspaceIds) {
    const policies = new Map(previous.byWorkspace);
    for (const id of workspaceIds) policies.delete(id);
    return { byWorkspace: byWorkspace(policies, await listActiveUsageLimitPolicies(store, workspaceIds)) };
  },
};

function byWorkspace(
  into: Map<string, readonly CompiledUsagePolicy[]>,
  policies: readonly UsageLimitPolicy[],
): Map<string, readonly CompiledUsagePolicy[]> {
  const now = Date.now();
  const fresh = new Map<string, CompiledUsagePolicy[]>();
  for (const p of policies) {
    const list = fresh.get(p.workspace_id) ?? [];
    list.push(compileUsagePolicy(p, now));
    fresh.set(p.workspace_id, list);
  }
  for (const [workspaceId, list] of fresh) into.set(workspaceId, list);
  return into;
}
