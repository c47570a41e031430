import { Type } from 'typebox';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  getRateLimitPolicy,
  insertRateLimitPolicy,
  listRateLimitPolicies,
  updateRateLimitPolicy,
  type RateLimitPolicy,
} from '../../../infra/store/repos/rate-limit-policies.js';
import { checkPolicyKeys } from '../../../features/limits/policy-keys.js';
import { RATE_LIMIT_SECTION } from '../../../features/limits/rate-limit-section.js';
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
import { StringEnum } from '../../../foundation/spec/string-enum.js';

const PolicyType = StringEnum(['requests', 'tokens']);
const Unit = StringEnum(['rpm', 'rph', 'rpd', 'rpw']);
const Value = Type.Integer({ minimum: 0, maximum: 1e15 });

const CreatePolicy = Type.Object(
  {
    name: Type.Optional(PolicyName),
    workspace_id: Type.Optional(Type.String({ minLength: 1 })),
    type: PolicyType,
    unit: Unit,
    value: Value,
    conditions: Type.Optional(PolicyConditions),
    group_by: Type.Optional(PolicyGroupBy),
  },
  { additionalProperties: false },
);
const UpdatePolicy = Type.Object(
  {
    name: Type.Optional(PolicyName),
    type: Type.Optional(PolicyType),
    unit: Type.Optional(Unit),
    value: Type.Optional(Value),
    conditions: Type.Optional(PolicyConditions),
    group_by: Type.Optional(PolicyGroupBy),
  },
  { additionalProperties: false, minProperties: 1 },
);
const ListQuery = Type.Object({ status: Type.Optional(PolicyStatus), type: Type.Optional(PolicyType), unit: Type.Optional(Unit) });
const ListItem = Type.Object({
  id: Type.String(),
  name: PolicyName,
  type: PolicyType,
  unit: Unit,
  value: Type.Number(),
  conditions: ConditionsAnswer,
  group_by: GroupByAnswer,
  status: PolicyStatus,
  workspace_id: Type.String(),
  organisation_id: Type.String(),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});
const PolicyAnswer = Type.Object({ ...ListItem.properties, object: Type.Literal('policy_rate_limits') });

/** A policy as lists show it (gateway-spec.md, "Rate-limits policy object"). */
function presentItem(p: RateLimitPolicy) {
  return {
    id: p.id,
    name: p.name,
    type: p.type,
    unit: p.unit,
    value: p.value,
    conditions: p.conditions,
    group_by: p.group_by,
    status: p.status,
    workspace_id: p.workspace_id,
    organisation_id: p.organisation_id,
    created_at: iso(p.created_at),
    last_updated_at: iso(p.updated_at),
  };
}

const lifecycle = policyLifecycle('Rate-limits policy', { get: getRateLimitPolicy, update: updateRateLimitPolicy });

/**
 * `/v1/policies/rate-limits`: create, update, archive (DELETE answers the archived policy), read
 * (`?status=archived` reads an archived one) and list rate-limit policies. Archiving is final: an
 * archived policy cannot change (409). Every write republishes the rate-limit section.
 */
export const rateLimitPoliciesResource = defineResource({
  name: 'rate_limit_policy',
  paths: ['/v1/policies/rate-limits'],
  tag: 'rate-limit policies',
  noun: { one: 'a rate-limits policy', many: 'rate-limits policies' },
  permissions: { read: 'rate_limits.read', write: 'rate_limits.write' },
  runtimeSections: [RATE_LIMIT_SECTION],
  schemas: { create: CreatePolicy, update: UpdatePolicy, listQuery: ListQuery, answer: PolicyAnswer },
  removal: 'archive',
  removeAnswer: 'record',
  idSchema: PolicyId,
  readQuery: PolicyReadQuery,
  listItem: { schema: ListItem, present: presentItem },
  repo: {
    get: lifecycle.get,
    list: (db, scope, q, page) => listRateLimitPolicies(db, scope, { status: q.status ?? 'active', type: q.type, unit: q.unit, ...page }),
    remove: lifecycle.remove,
  },
  readable: lifecycle.readable,
  writable: lifecycle.writable,
  idOf: (p) => p.id,
  workspaceOf: (p) => p.workspace_id,
  present: (p) => ({ ...presentItem(p), object: 'policy_rate_limits' as const }),
  async create(ctx, body) {
    checkPolicyKeys(body.conditions, body.group_by);
    const record: RateLimitPolicy = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      workspace_id: ctx.workspaceId,
      name: body.name ?? null,
      type: body.type,
      unit: body.unit,
      value: body.value,
      conditions: body.conditions ?? [],
      group_by: body.group_by ?? [],
      status: 'active',
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertRateLimitPolicy(ctx.db, ctx.scope, record);
    return { record, details: { name: record.name, type: record.type, unit: record.unit, value: record.value } };
  },
  async update(ctx, p, body) {
    checkPolicyKeys(body.conditions, body.group_by);
    await updateRateLimitPolicy(ctx.db, ctx.scope, p.id, body, ctx.now);
    return { record: (await getRateLimitPolicy(ctx.db, ctx.scope, p.id)) ?? p, details: { changed: Object.keys(body) } };
  },
});
