import type { RuntimeSection } from '../runtime/runtime.js';
import { listActiveRateLimitPolicies } from '../store/repos/rate-limit-policies.js';
import { compilePolicy, type CompiledPolicy } from './compiled-policy.js';

/** Name of the runtime snapshot section holding the active rate-limit policies. */
export const RATE_LIMIT_SECTION = 'rate-limits';

/** The active policies, compiled, by workspace id (a policy applies to its own workspace's requests). */
export interface RateLimitSection {
  byWorkspace: ReadonlyMap<string, readonly CompiledPolicy[]>;
}

/** Loads every active policy on each snapshot rebuild (after an admin write, or ≤ 1 s on other replicas). */
export const rateLimitSection: RuntimeSection<RateLimitSection> = {
  name: RATE_LIMIT_SECTION,
  async load(store) {
    const byWorkspace = new Map<string, CompiledPolicy[]>();
    for (const p of await listActiveRateLimitPolicies(store)) {
      const list = byWorkspace.get(p.workspace_id) ?? [];
      list.push(compilePolicy(p));
      byWorkspace.set(p.workspace_id, list);
    }
    return { byWorkspace };
  },
};
