import type { Store } from '../../infra/store/store.js';
import { loadAllPrompts, type PromptKind, type PromptVersion, type StoredPrompt } from './prompts-repo.js';
import type { RuntimeSection } from '../../runtime/runtime.js';
import { selectVersion, type PromptRef } from './prompt-ref.js';

/** A prompt or partial as the request path sees it: identity plus every version. */
export interface CatalogEntry extends StoredPrompt {
  versions: ReadonlyMap<number, PromptVersion>;
}

/** Where a data-plane request may look prompts up. */
export interface LookupScope {
  workspaceId: string;
  organisationId: string;
  /** Organisation keys may name a prompt of any workspace of their organisation by id. */
  anyWorkspace: boolean;
}

/**
 * The prompts and partials of every workspace, held in the runtime snapshot (section `prompts`) so the
 * request path never reads SQL. Rebuilt with the snapshot after every control-plane write.
 */
export class PromptCatalog {
  private readonly byRef = new Map<string, CatalogEntry>();
  private readonly byId = new Map<string, CatalogEntry>();

  constructor(entries: Array<StoredPrompt & { versions: PromptVersion[] }>) {
    for (const e of entries) {
      const entry: CatalogEntry = { ...e, versions: new Map(e.versions.map((v) => [v.version, v])) };
      this.byId.set(e.id, entry);
      this.byRef.set(`${e.kind}:${e.workspace_id}:${e.id}`, entry);
      this.byRef.set(`${e.kind}:${e.workspace_id}:${e.slug}`, entry);
    }
  }

  /** A prompt or partial by id or slug in the scope's workspace (or by id in its organisation). */
  find(kind: PromptKind, ref: string, scope: LookupScope): CatalogEntry | undefined {
    const hit = this.byRef.get(`${kind}:${scope.workspaceId}:${ref}`);
    if (hit || !scope.anyWorkspace) return hit;
    const byId = this.byId.get(ref);
    return byId && byId.kind === kind && byId.organisation_id === scope.organisationId ? byId : undefined;
  }

  /** A catalog with the entries of `workspaceIds` replaced by `entries` (this one is not changed). */
  withWorkspaces(workspaceIds: readonly string[], entries: Array<StoredPrompt & { versions: PromptVersion[] }>): PromptCatalog {
    const changed = new Set(workspaceIds);
    const kept = [...this.byId.values()]
      .filter((e) => !changed.has(e.workspace_id))
      .map((e) => ({ ...e, versions: [...e.versions.values()] }));
    return new PromptCatalog([...kept, ...entries]);
  }

  /** The entry and version a parsed reference selects, or undefined when either is unknown. */
  resolve(kind: PromptKind, ref: PromptRef, scope: LookupScope): { entry: CatalogEntry; version: PromptVersion } | undefined {
    const entry = this.find(kind, ref.ref, scope);
    const version = entry?.versions.get(selectVersion(entry, ref.version));
    return entry && version ? { entry, version } : undefined;
  }
}

/** Name of the runtime snapshot section holding the PromptCatalog. */
export const PROMPTS_SECTION = 'prompts';

/**
 * The runtime section: every prompt and partial with their versions, or (after a write naming its
 * workspace) the previous catalog with that workspace's entries reloaded.
 */
export const promptsSection: RuntimeSection<PromptCatalog> = {
  name: PROMPTS_SECTION,
  load: async (store: Store) => new PromptCatalog(await loadAllPrompts(store)),
  loadWorkspaces: async (store, previous, workspaceIds) => previous.withWorkspaces(workspaceIds, await loadAllPrompts(store, workspaceIds)),
};
