import type { Store } from '../store.js';
import type { Kysely } from 'kysely';
import type { Database, RateLimitPoliciesTable } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { assertInScope } from './tenant.js';
import { getPolicyRow, listPolicyRows, updatePolicyRow } from './policy-rows.js';

export type RateLimitType = 'requests' | 'tokens';
export type RateLimitUnit = 'rpm' | 'rph' | 'rpd' | 'rpw';
export type PolicyStatus = 'active' | 'archived';

/** A stored rate-limit policy (gateway-spec.md, "Rate-limits policy object"). */
export interface RateLimitPolicy {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string | null;
  type: RateLimitType;
  unit: RateLimitUnit;
  value: number;
  conditions: Array<{ key: string; value: string }>;
  group_by: Array<{ key: string }>;
  status: PolicyStatus;
  created_at: number;
  updated_at: number;
}

/** Fields an update may change. */
export type RateLimitPolicyPatch = Partial<
  Pick<RateLimitPolicy, 'name' | 'type' | 'unit' | 'value' | 'conditions' | 'group_by' | 'status'>
>;

/** List filters (the tenant scope, already narrowed by `workspace_id`, is passed beside them). */
export interface RateLimitPolicyFilter {
  status: PolicyStatus;
  type?: RateLimitType;
  unit?: RateLimitUnit;
  limit: number;
  offset: number;
}

/** Inserts a policy into a workspace of the scope. */
export async function insertRateLimitPolicy(db: Kysely<Database>, scope: TenantScope, p: RateLimitPolicy): Promise<void> {
  assertInScope(scope, p.organisation_id, p.workspace_id);
  await db.insertInto('rate_limit_policies').values(toRow(p)).execute();
}

/** Applies `patch` to a policy of the scope; returns false when the scope has no policy with that id. */
export async function updateRateLimitPolicy(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  patch: RateLimitPolicyPatch,
  now: number,
): Promise<boolean> {
  const set: Partial<RateLimitPoliciesTable> = { updated_at: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.type !== undefined) set.type = patch.type;
  if (patch.unit !== undefined) set.unit = patch.unit;
  if (patch.value !== undefined) set.value = patch.value;
  if (patch.conditions !== undefined) set.conditions = JSON.stringify(patch.conditions);
  if (patch.group_by !== undefined) set.group_by = JSON.stringify(patch.group_by);
  if (patch.status !== undefined) set.status = patch.status;
  return updatePolicyRow(db, 'rate_limit_policies', scope, id, set);
}

/** One policy of the scope by id (any status). */
export async function getRateLimitPolicy(db: Kysely<Database>, scope: TenantScope, id: string): Promise<RateLimitPolicy | undefined> {
  const row = await getPolicyRow(db, 'rate_limit_policies', scope, id);
  return row && fromRow(row);
}

/** A page of the scope's policies, newest first, with the total matching the filters. */
export async function listRateLimitPolicies(
  db: Kysely<Database>,
  scope: TenantScope,
  f: RateLimitPolicyFilter,
): Promise<{ rows: RateLimitPolicy[]; total: number }> {
  const { rows, total } = await listPolicyRows(db, 'rate_limit_policies', scope, { ...f, columns: { type: f.type, unit: f.unit } });
  return { rows: rows.map(fromRow), total };
}

/** Every active policy, or those of some workspaces (the runtime snapshot's source). */
export async function listActiveRateLimitPolicies(store: Store, workspaceIds?: readonly string[]): Promise<RateLimitPolicy[]> {
  let q = store.db.selectFrom('rate_limit_policies').selectAll().where('status', '=', 'active');
  if (workspaceIds) q = q.where('workspace_id', 'in', [...workspaceIds]);
  const rows = await q.execute();
  return rows.map(fromRow);
}

function toRow(p: RateLimitPolicy): RateLimitPoliciesTable {
  return { ...p, conditions: JSON.stringify(p.conditions), group_by: JSON.stringify(p.group_by) };
}

function fromRow(r: RateLimitPoliciesTable): RateLimitPolicy {
  return {
    ...r,
    type: r.type as RateLimitType,
    unit: r.unit as RateLimitUnit,
    status: r.status as PolicyStatus,
    value: Number(r.value),
    conditions: JSON.parse(r.conditions),
    group_by: JSON.parse(r.group_by),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
