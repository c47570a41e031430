import { Type } from 'typebox';
import { uuid } from '../../../foundation/lib/ids.js';
import { USAGE_LIMIT_SECTION } from '../../../features/limits/usage-limit-section.js';
import {
  getUsageLimitPolicy,
  insertUsageLimitPolicy,
  listUsageLimitPolicies,
  updateUsageLimitPolicy,
  type UsageLimitPolicy,
} from '../../../infra/store/repos/usage-limit-policies.js';
import { defineResource } from '../../resource/define-resource.js';
import {
  ConditionsAnswer,
  GroupByAnswer,
  PolicyConditions,
  PolicyGroupBy,
  PolicyId,
  PolicyName,
  PolicyReadQuery,
  PolicyStatus,
  policyLifecycle,
} from '../policy-parts.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { listEntities, resetEntity } from './usage-limit-entities.js';
import { managedBy } from './inline-usage-limits.js';
import { usageLimitPatch } from './usage-limit-fields.js';
import { Amount, Days, LimitFieldsAnswer, LimitType, Reset, ResetAt, presentLimitFields } from './usage-limit-schemas.js';
import { Nullable } from '../../../foundation/spec/nullable.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { PolicyWarning, unpricedModelWarnings } from './unpriced-models.js';

const CreatePolicy = Type.Object(
  {
    name: Type.Optional(PolicyName),
    workspace_id: Type.Optional(Type.String({ minLength: 1 })),
    type: LimitType,
    credit_limit: Amount,
    alert_threshold: Type.Optional(Nullable(Amount)),
    periodic_reset: Type.Optional(Nullable(Reset)),
    periodic_reset_days: Type.Optional(Nullable(Days)),
    next_usage_reset_at: Type.Optional(Nullable(ResetAt)),
    conditions: Type.Optional(PolicyConditions),
    group_by: Type.Optional(PolicyGroupBy),
  },
  { additionalProperties: false },
);
const UpdatePolicy = Type.Object(
  {
    name: Type.Optional(PolicyName),
    type: Type.Optional(LimitType),
    credit_limit: Type.Optional(Amount),
    alert_threshold: Type.Optional(Nullable(Amount)),
    periodic_reset: Type.Optional(Nullable(Reset)),
    periodic_reset_days: Type.Optional(Nullable(Days)),
    next_usage_reset_at: Type.Optional(Nullable(ResetAt)),
    conditions: Type.Optional(PolicyConditions),
    group_by: Type.Optional(PolicyGroupBy),
  },
  { additionalProperties: false, minProperties: 1 },
);
const ListQuery = Type.Object({ status: Type.Optional(PolicyStatus), type: Type.Optional(LimitType) });
const ListItem = Type.Object({
  id: Type.String(),
  name: PolicyName,
  ...LimitFieldsAnswer.properties,
  conditions: ConditionsAnswer,
  group_by: GroupByAnswer,
  status: PolicyStatus,
  /** The API key or workspace whose inline `usage_limits` made this policy (null: made here). */
  managed_by: Nullable(Type.Object({ type: StringEnum(['api_key', 'workspace']), id: Type.String() })),
  workspace_id: Type.String(),
  organisation_id: Type.String(),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});
const PolicyAnswer = Type.Object({ ...ListItem.properties, object: Type.Literal('policy_usage_limits') });
/** The answer of a create: the policy and `warnings` (advice; empty when none), e.g. a cost budget on models without a price. */
const CreatedPolicy = Type.Object({ ...PolicyAnswer.properties, warnings: Type.Array(PolicyWarning) });

/** A policy as lists show it. */
function presentItem(p: UsageLimitPolicy) {
  return {
    id: p.id,
    name: p.name,
    ...presentLimitFields(p, Date.now()),
    conditions: p.conditions,
    group_by: p.group_by,
    status: p.status,
    managed_by: managedBy(p.owner),
    workspace_id: p.workspace_id,
    organisation_id: p.organisation_id,
    created_at: iso(p.created_at),
    last_updated_at: iso(p.updated_at),
  };
}

/** A single policy's answer. */
const presentPolicy = (p: UsageLimitPolicy) => ({ ...presentItem(p), object: 'policy_usage_limits' as const });

const lifecycle = policyLifecycle('Usage-limits policy', { get: getUsageLimitPolicy, update: updateUsageLimitPolicy });

/**
 * `/v1/policies/usage-limits`: create, update, archive (DELETE answers the archived policy), read
 * (`?status=archived` reads an archived one) and list usage-limit policies, plus each policy's
 * `/entities` and `/entities/reset`. Same conditions, group_by, status filter, paging and errors as
 * the rate-limit policies. Every write republishes the usage-limit section. See docs/usage-limits.md.
 */
export const usageLimitPoliciesResource = defineResource({
  name: 'usage_limit_policy',
  paths: ['/v1/policies/usage-limits'],
  tag: 'usage-limit policies',
  noun: { one: 'a usage-limits policy', many: 'usage-limits policies' },
  permissions: { read: 'usage_limits.read', write: 'usage_limits.write' },
  runtimeSections: [USAGE_LIMIT_SECTION],
  schemas: { create: CreatePolicy, update: UpdatePolicy, listQuery: ListQuery, answer: PolicyAnswer, created: CreatedPolicy },
  removal: 'archive',
  removeAnswer: 'record',
  idSchema: PolicyId,
  readQuery: PolicyReadQuery,
  listItem: { schema: ListItem, present: presentItem },
  actions: [listEntities, resetEntity],
  repo: {
    get: lifecycle.get,
    list: (db, scope, q, page) => listUsageLimitPolicies(db, scope, { status: q.status ?? 'active', type: q.type, ...page }),
    remove: lifecycle.remove,
  },
  readable: lifecycle.readable,
  writable: lifecycle.writable,
  idOf: (p) => p.id,
  workspaceOf: (p) => p.workspace_id,
  present: presentPolicy,
  async create(ctx, body) {
    const patch = usageLimitPatch(body);
    const record: UsageLimitPolicy = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      workspace_id: ctx.workspaceId,
      name: body.name ?? null,
      type: body.type,
      credit_limit: body.credit_limit,
      alert_threshold: patch.alert_threshold ?? null,
      periodic_reset: patch.periodic_reset ?? null,
      periodic_reset_days: patch.periodic_reset_days ?? null,
      next_usage_reset_at: patch.next_usage_reset_at ?? null,
      conditions: body.conditions ?? [],
      group_by: body.group_by ?? [],
      status: 'active',
      owner: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertUsageLimitPolicy(ctx.db, ctx.scope, record);
    const warnings = await unpricedModelWarnings(ctx.db, record.workspace_id, record.type, ctx.now);
    return {
      record,
      answer: { ...presentPolicy(record), warnings },
      details: { name: record.name, type: record.type, credit_limit: record.credit_limit },
    };
  },
  async update(ctx, p, body) {
    const patch = usageLimitPatch(body, p);
    await updateUsageLimitPolicy(
      ctx.db,
      ctx.scope,
      p.id,
      { ...patch, ...(body.name !== undefined ? { name: body.name } : {}), ...(body.type !== undefined ? { type: body.type } : {}) },
      ctx.now,
    );
    return { record: (await getUsageLimitPolicy(ctx.db, ctx.scope, p.id)) ?? p, details: { changed: Object.keys(body) } };
  },
});
