import type { TenantScope } from '../../../kernel/tenant-scope.js';

/** The scope's workspaces as an `in (...)` list that is never empty (an empty scope matches nothing). */
export function inList(scope: TenantScope): string[] {
  return scope.workspaceIds.length ? [...scope.workspaceIds] : [''];
}

/** Throws unless a row of this organisation and workspace (null: organisation level) is inside the scope. */
export function assertInScope(scope: TenantScope, organisationId: string, workspaceId: string | null): void {
  const inside =
    organisationId === scope.organisationId && (workspaceId === null ? scope.organisationWide : scope.workspaceIds.includes(workspaceId));
  if (!inside) throw new Error(`A write outside the tenant scope (organisation ${organisationId}, workspace ${workspaceId ?? '-'}).`);
}
