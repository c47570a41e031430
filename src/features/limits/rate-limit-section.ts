import type { RuntimeSection } from '../../runtime/runtime.js';
import { listActiveRateLimitPolicies, type RateLimitPolicy } from '../../infra/store/repos/rate-limit-policies.js';
import { compilePolicy, type CompiledPolicy } from './compiled-policy.js';

/** Name of the runtime snapshot section holding the active rate-limit policies. */
export const RATE_LIMIT_SECTION = 'rate-limits';

/** The active policies, compiled, by workspace id (a policy applies to its own workspace's requests). */
export interface RateLimitSection {
  byWorkspace: ReadonlyMap<string, readonly CompiledPolicy[]>;
}

/** Loads the active policies: all of them, or (after a write naming its workspace) those of the workspaces changed. */
export const rateLimitSection: RuntimeSection<RateLimitSection> = {
  name: RATE_LIMIT_SECTION,
  async load(store) {
    return { byWorkspace: byWorkspace(new Map(), await listActiveRateLimitPolicies(store)) };
  },
  async loadWorkspaces(store, previous, workspaceIds) {
    const policies = new Map(previous.byWorkspace);
    for (const id of workspaceIds) policies.delete(id);
    return { byWorkspace: byWorkspace(policies, await listActiveRateLimitPolicies(store, workspaceIds)) };
  },
};

/** Adds the policies, compiled and grouped by workspace, to `into` (replacing those workspaces' lists). */
function byWorkspace(
  into: Map<string, readonly CompiledPolicy[]>,
  policies: readonly RateLimitPolicy[],
): Map<string, readonly CompiledPolicy[]> {
  const fresh = new Map<string, CompiledPolicy[]>();
  for (const p of policies) {
    const list = fresh.get(p.workspace_id) ?? [];
    list.push(compilePolicy(p));
    fresh.set(p.workspace_id, list);
  }
  for (const [workspaceId, list] of fresh) into.set(workspaceId, list);
  return into;
}
