import type { Store } from '../store.js';
import type { Kysely } from 'kysely';
import type { Database, UsageLimitPoliciesTable } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { assertInScope, inList } from './tenant.js';
import { getPolicyRow, listPolicyRows, updatePolicyRow } from './policy-rows.js';
import type { PolicyStatus } from './rate-limit-policies.js';

export type UsageLimitType = 'cost' | 'tokens' | 'requests';
export type PeriodicReset = 'weekly' | 'monthly';

/** A stored usage-limit policy (docs/usage-limits.md). Times are ms since the epoch. */
export interface UsageLimitPolicy {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string | null;
  type: UsageLimitType;
  credit_limit: number;
  alert_threshold: number | null;
  periodic_reset: PeriodicReset | null;
  periodic_reset_days: number | null;
  /** Anchor of the reset schedule, 00:00 UTC of its day (null: none given). */
  next_usage_reset_at: number | null;
  conditions: Array<{ key: string; value: string }>;
  group_by: Array<{ key: string }>;
  status: PolicyStatus;
  /** `api_key:<id>` / `workspace:<id>` when the policy is an inline `usage_limits` entry of that owner, else null. */
  owner: string | null;
  created_at: number;
  updated_at: number;
}

/** Fields an update may change. */
export type UsageLimitPolicyPatch = Partial<
  Pick<
    UsageLimitPolicy,
    | 'name'
    | 'type'
    | 'credit_limit'
    | 'alert_threshold'
    | 'periodic_reset'
    | 'periodic_reset_days'
    | 'next_usage_reset_at'
    | 'conditions'
    | 'group_by'
    | 'status'
  >
>;

/** List filters (the tenant scope, already narrowed by `workspace_id`, is passed beside them). */
export interface UsageLimitPolicyFilter {
  status: PolicyStatus;
  type?: UsageLimitType;
  limit: number;
  offset: number;
}

/** Inserts a policy into a workspace of the scope. */
export async function insertUsageLimitPolicy(db: Kysely<Database>, scope: TenantScope, p: UsageLimitPolicy): Promise<void> {
  assertInScope(scope, p.organisation_id, p.workspace_id);
  await db.insertInto('usage_limit_policies').values(toRow(p)).execute();
}

/** Applies `patch` to a policy of the scope; returns false when the scope has no policy with that id. */
export async function updateUsageLimitPolicy(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  patch: UsageLimitPolicyPatch,
  now: number,
): Promise<boolean> {
  const set: Partial<UsageLimitPoliciesTable> = { updated_at: now };
  for (const k of [
    'name',
    'type',
    'credit_limit',
    'alert_threshold',
    'periodic_reset',
    'periodic_reset_days',
    'next_usage_reset_at',
    'status',
  ] as const) {
    if (patch[k] !== undefined) (set as Record<string, unknown>)[k] = patch[k];
  }
  if (patch.conditions !== undefined) set.conditions = JSON.stringify(patch.conditions);
  if (patch.group_by !== undefined) set.group_by = JSON.stringify(patch.group_by);
  return updatePolicyRow(db, 'usage_limit_policies', scope, id, set);
}

/** One policy of the scope by id (any status). */
export async function getUsageLimitPolicy(db: Kysely<Database>, scope: TenantScope, id: string): Promise<UsageLimitPolicy | undefined> {
  const row = await getPolicyRow(db, 'usage_limit_policies', scope, id);
  return row && fromRow(row);
}

/** A page of the scope's policies, newest first, with the total matching the filters. */
export async function listUsageLimitPolicies(
  db: Kysely<Database>,
  scope: TenantScope,
  f: UsageLimitPolicyFilter,
): Promise<{ rows: UsageLimitPolicy[]; total: number }> {
  const { rows, total } = await listPolicyRows(db, 'usage_limit_policies', scope, { ...f, columns: { type: f.type } });
  return { rows: rows.map(fromRow), total };
}

/** The active policies of the scope made by these owners' inline `usage_limits`, oldest first (entries of one write by name: `… usage_limits[i]`). */
export async function listOwnedUsageLimitPolicies(
  db: Kysely<Database>,
  scope: TenantScope,
  owners: readonly string[],
): Promise<UsageLimitPolicy[]> {
  if (owners.length === 0 || scope.workspaceIds.length === 0) return [];
  const rows = await db
    .selectFrom('usage_limit_policies')
    .selectAll()
    .where('owner', 'in', [...owners])
    .where('status', '=', 'active')
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .orderBy('created_at')
    .orderBy('name')
    .execute();
  return rows.map(fromRow);
}

/** Archives the active policies an owner's inline `usage_limits` made; returns how many. */
export async function archiveOwnedUsageLimitPolicies(
  db: Kysely<Database>,
  scope: TenantScope,
  owner: string,
  now: number,
): Promise<number> {
  const res = await db
    .updateTable('usage_limit_policies')
    .set({ status: 'archived', updated_at: now })
    .where('owner', '=', owner)
    .where('status', '=', 'active')
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Every active policy, or those of some workspaces (the runtime snapshot's source). */
export async function listActiveUsageLimitPolicies(store: Store, workspaceIds?: readonly string[]): Promise<UsageLimitPolicy[]> {
  let q = store.db.selectFrom('usage_limit_policies').selectAll().where('status', '=', 'active');
  if (workspaceIds) q = q.where('workspace_id', 'in', [...workspaceIds]);
  const rows = await q.execute();
  return rows.map(fromRow);
}

function toRow(p: UsageLimitPolicy): UsageLimitPoliciesTable {
  return { ...p, conditions: JSON.stringify(p.conditions), group_by: JSON.stringify(p.group_by) };
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function fromRow(r: UsageLimitPoliciesTable): UsageLimitPolicy {
  return {
    ...r,
    type: r.type as UsageLimitType,
    status: r.status as PolicyStatus,
    periodic_reset: (r.periodic_reset as PeriodicReset | null) ?? null,
    credit_limit: Number(r.credit_limit),
    alert_threshold: num(r.alert_threshold),
    periodic_reset_days: num(r.periodic_reset_days),
    next_usage_reset_at: num(r.next_usage_reset_at),
    conditions: JSON.parse(r.conditions),
    group_by: JSON.parse(r.group_by),
    owner: r.owner ?? null,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
