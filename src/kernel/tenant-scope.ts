/**
 * The tenant a repository read or write is limited to: one organisation and the workspaces of it the
 * caller may see. Every repository function over a tenant-owned table takes one (required), and
 * merges it into its query, so a forgotten filter cannot leak another tenant's rows.
 */
export interface TenantScope {
  readonly organisationId: string;
  /** The workspaces visible to the caller (one for workspace principals; every one of the organisation otherwise). */
  readonly workspaceIds: readonly string[];
  /** True for organisation principals not narrowed to a workspace: organisation-level rows are visible too. */
  readonly organisationWide: boolean;
}

/** A scope narrowed to one workspace of it (the caller checked that the workspace is in scope). */
export function narrowTo(scope: TenantScope, workspaceId: string): TenantScope {
  return {
    organisationId: scope.organisationId,
    workspaceIds: scope.workspaceIds.includes(workspaceId) ? [workspaceId] : [],
    organisationWide: false,
  };
}
