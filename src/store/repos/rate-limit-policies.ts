import type { Store } from '../store.js';
import type { RateLimitPoliciesTable } from '../schema.js';

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
export type RateLimitPolicyPatch = Partial<Pick<RateLimitPolicy, 'name' | 'type' | 'unit' | 'value' | 'conditions' | 'group_by' | 'status'>>;

/** List filters; `workspaceIds` is the caller's visible set (already narrowed by `workspace_id`). */
export interface RateLimitPolicyFilter {
  workspaceIds: string[];
  status: PolicyStatus;
  type?: RateLimitType;
  unit?: RateLimitUnit;
  limit: number;
  offset: number;
}

export async function insertRateLimitPolicy(store: Store, p: RateLimitPolicy): Promise<void> {
  await store.db.insertInto('rate_limit_policies').values(toRow(p)).execute();
}

/** Applies `patch`; returns false when no policy has that id. */
export async function updateRateLimitPolicy(store: Store, id: string, patch: RateLimitPolicyPatch, now: number): Promise<boolean> {
  const set: Partial<RateLimitPoliciesTable> = { updated_at: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.type !== undefined) set.type = patch.type;
  if (patch.unit !== undefined) set.unit = patch.unit;
  if (patch.value !== undefined) set.value = patch.value;
  if (patch.conditions !== undefined) set.conditions = JSON.stringify(patch.conditions);
  if (patch.group_by !== undefined) set.group_by = JSON.stringify(patch.group_by);
  if (patch.status !== undefined) set.status = patch.status;
  const res = await store.db.updateTable('rate_limit_policies').set(set).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** One policy by id within the given workspaces (any status). */
export async function getRateLimitPolicy(store: Store, id: string, workspaceIds?: string[]): Promise<RateLimitPolicy | undefined> {
  let q = store.db.selectFrom('rate_limit_policies').selectAll().where('id', '=', id);
  if (workspaceIds) {
    if (workspaceIds.length === 0) return undefined;
    q = q.where('workspace_id', 'in', workspaceIds);
  }
  const row = await q.executeTakeFirst();
  return row && fromRow(row);
}

/** A page of policies, newest first, with the total matching the filters. */
export async function listRateLimitPolicies(store: Store, f: RateLimitPolicyFilter): Promise<{ rows: RateLimitPolicy[]; total: number }> {
  if (f.workspaceIds.length === 0) return { rows: [], total: 0 };
  let base = store.db.selectFrom('rate_limit_policies').where('workspace_id', 'in', f.workspaceIds).where('status', '=', f.status);
  if (f.type) base = base.where('type', '=', f.type);
  if (f.unit) base = base.where('unit', '=', f.unit);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
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
