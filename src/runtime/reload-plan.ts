import { EVERY_SECTION, type RecordedRuntimeChange } from '../infra/store/store.js';
import type { RuntimeChange } from '../kernel/runtime-change.js';

/**
 * What one snapshot reload has to do: everything, or some sections, each whole (null) or only some
 * of its workspaces. Changes merge: a whole section absorbs its workspaces, `*` absorbs everything.
 */
export class ReloadPlan {
  everything = false;
  readonly sections = new Map<string, Set<string> | null>();

  /** Adds one change; a missing or null workspace means the whole section. */
  add(section: string, workspaceId?: string | null): void {
    if (section === EVERY_SECTION) {
      this.everything = true;
      return;
    }
    const current = this.sections.get(section);
    if (workspaceId === undefined || workspaceId === null) this.sections.set(section, null);
    else if (current === undefined) this.sections.set(section, new Set([workspaceId]));
    else current?.add(workspaceId);
  }

  /** Adds changes; no list at all means everything. */
  addAll(changes: readonly RuntimeChange[] | undefined): void {
    if (changes === undefined) this.everything = true;
    else for (const c of changes) this.add(c.section, c.workspaceId);
  }

  /** True when nothing is to be reloaded. */
  get empty(): boolean {
    return !this.everything && this.sections.size === 0;
  }
}

/**
 * True when the outbox rows read for versions `after` (exclusive) to `upTo` name every one of those
 * versions (each recorded write leaves at least one row); false when some were pruned.
 */
export function coversEveryVersion(rows: readonly RecordedRuntimeChange[], after: number, upTo: number): boolean {
  const versions = new Set<number>();
  for (const r of rows) if (r.version > after && r.version <= upTo) versions.add(r.version);
  return versions.size === upTo - after;
}
