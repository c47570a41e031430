import type { Store } from '../infra/store/store.js';

/**
 * One named part of the runtime snapshot (the core's api keys, workspaces, configs and virtual keys,
 * and each capability's own): how to load it from the store. A section value is never mutated once
 * loaded; a reload builds a new value aside and the runtime swaps the snapshot atomically.
 *
 * Loaders run while the gateway serves requests: a loader that reads many rows reads them in pages
 * and yields to the event loop between pages (`yieldToEventLoop`), since SQLite queries are synchronous.
 */
export interface RuntimeSection<T = unknown> {
  /** Section name, as written in `RuntimeChange.section` and in the outbox. */
  name: string;
  /**
   * Loads the whole section. `previous` (the current value, absent at start) may be used to reuse
   * parts that did not change (e.g. compiled configs of the same version); it must not be changed.
   */
  load(store: Store, previous?: T): Promise<T>;
  /**
   * Optional: `previous` with only these workspaces' parts reloaded (when a write named its workspace);
   * must not change `previous`. Sections without it are reloaded whole.
   */
  loadWorkspaces?(store: Store, previous: T, workspaceIds: readonly string[]): Promise<T>;
}
