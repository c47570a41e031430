/**
 * The runtime snapshot section of stored guardrails: the hot path resolves a config's string items
 * (guardrail id or slug) here, never in SQL.
 */
import type { RuntimeSection } from '../../runtime/runtime.js';
import { sectionOf, type RuntimeSnapshot } from '../../runtime/snapshot.js';
import { listAllGuardrails, type StoredCheck, type StoredGuardrail } from './guardrails-repo.js';
import { openConfigCredentials } from '../../foundation/lib/config-credentials.js';
import { SecretBoxError, type SecretBox } from '../../foundation/lib/secret-box.js';
import type { Logger } from '../../infra/observability/logger.js';
import type { StoredLookup } from './guardrail-plan.js';

/** Name of the runtime snapshot section of stored guardrails. */
export const GUARDRAILS_SECTION = 'guardrails';

/** Stored guardrails by `${workspaceId}:${id}` and `${workspaceId}:${slug}`. */
export type GuardrailIndex = ReadonlyMap<string, StoredGuardrail>;

/**
 * The section: all stored guardrails, or (after a write naming its workspace) those of the workspaces
 * changed. With `secrets`, the sealed credentials of their checks (a webhook's `headers` …) are opened
 * as they load, so the checks run with the real values; a guardrail whose credentials do not open
 * (another `GATEWAY_ENCRYPTION_KEY`) is left out with a warning naming it, never its values.
 */
export function guardrailsSection(secrets?: SecretBox, logger?: Logger): RuntimeSection<GuardrailIndex> {
  const opened = (guardrails: readonly StoredGuardrail[]): StoredGuardrail[] => {
    if (!secrets) return [...guardrails];
    const out: StoredGuardrail[] = [];
    for (const g of guardrails) {
      try {
        out.push({ ...g, checks: openConfigCredentials(secrets, g.id, { checks: g.checks }, 'guardrail').checks as StoredCheck[] });
      } catch (err) {
        if (!(err instanceof SecretBoxError)) throw err;
        logger?.warn(
          { guardrailId: g.id, workspaceId: g.workspace_id },
          'stored guardrail credentials do not open with this encryption key; guardrail skipped',
        );
      }
    }
    return out;
  };
  return {
    name: GUARDRAILS_SECTION,
    async load(store) {
      return indexed(new Map(), opened(await listAllGuardrails(store)));
    },
    async loadWorkspaces(store, previous, workspaceIds) {
      const changed = new Set(workspaceIds);
      const index = new Map<string, StoredGuardrail>();
      for (const [k, g] of previous) if (!changed.has(g.workspace_id)) index.set(k, g);
      return indexed(index, opened(await listAllGuardrails(store, workspaceIds)));
    },
  };
}

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
