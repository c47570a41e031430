/**
 * What a control-plane write touched: one runtime snapshot section (`api-keys`, `configs`, a
 * capability's section name, ...) and, when the change is limited to one workspace, that workspace.
 * Writers record their changes in the write's transaction (`recordRuntimeChange`) and hand the same
 * list to `Runtime.committed` after the commit, so every replica reloads only what changed.
 */
export interface RuntimeChange {
  readonly section: string;
  readonly workspaceId?: string | null;
}
