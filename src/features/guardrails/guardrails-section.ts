/**
 * The runtime snapshot section of stored guardrails: the hot path resolves a config's string items
 * (guardrail id or slug) here, never in SQL.
 */
import type { RuntimeSection } from '../../runtime/runtime.js';
import { sectionOf, type RuntimeSnapshot } from '../../runtime/snapshot.js';
import { listAllGuardrails, type StoredGuardrail } from './guardrails-repo.js';
import type { StoredLookup } from './guardrail-plan.js';

/** Name of the runtime snapshot section of stored guardrails. */
export const GUARDRAILS_SECTION = 'guardrails';

/** Stored guardrails by `${workspaceId}:${id}` and `${workspaceId}:${slug}`. */
export type GuardrailIndex = ReadonlyMap<string, StoredGuardrail>;

/** The section: all stored guardrails, or (after a write naming its workspace) those of the workspaces changed. */
export const guardrailsSection: RuntimeSection<GuardrailIndex> = {
  name: GUARDRAILS_SECTION,
  async load(store) {
    return indexed(new Map(), await listAllGuardrails(store));
  },
  async loadWorkspaces(store, previous, workspaceIds) {
    const changed = new Set(workspaceIds);
    const index = new Map<string, StoredGuardrail>();
    for (const [k, g] of previous) if (!changed.has(g.workspace_id)) index.set(k, g);
    return indexed(index, await listAllGuardrails(store, workspaceIds));
  },
};

function indexed(index: Map<string, StoredGuardrail>, guardrails: readonly StoredGuardrail[]): GuardrailIndex {
  for (const g of guardrails) {
    index.set(`${g.workspace_id}:${g.id}`, g);
    index.set(`${g.workspace_id}:${g.slug}`, g);
  }
  return index;
}

/** Lookup of the stored guardrails of one workspace in a snapshot. */
export function storedLookup(snapshot: RuntimeSnapshot, workspaceId: string): StoredLookup {
  const index = sectionOf<GuardrailIndex>(snapshot, GUARDRAILS_SECTION);
  return (idOrSlug) => index?.get(`${workspaceId}:${idOrSlug}`);
}
