import { Type, type Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { uuid } from '../lib/ids.js';
import { PageQuery, iso, pageOf } from '../admin/paging.js';
import type { GatewayDeps } from '../server/deps.js';
import { workspaceScope, writeWorkspace } from '../server/middleware/auth/auth.js';
import { getRateLimitPolicy, insertRateLimitPolicy, listRateLimitPolicies, updateRateLimitPolicy, type RateLimitPolicy } from '../store/repos/rate-limit-policies.js';
import { checkPolicyKeys } from './policy-keys.js';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));
const PolicyType = literals(['requests', 'tokens'] as const);
const Unit = literals(['rpm', 'rph', 'rpd', 'rpw'] as const);
const Status = literals(['active', 'archived'] as const);
const Name = Type.Union([Type.String({ maxLength: 200 }), Type.Null()]);
const Value = Type.Integer({ minimum: 0, maximum: 1e15 });
const Conditions = Type.Array(Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }), value: Type.String({ maxLength: 512 }) }, { additionalProperties: false }), { maxItems: 32 });
const GroupBy = Type.Array(Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }), { maxItems: 8 });

const CreateBody = Type.Object(
  {
    name: Type.Optional(Name),
    workspace_id: Type.Optional(Type.String({ minLength: 1 })),
    type: PolicyType,
    unit: Unit,
    value: Value,
    conditions: Type.Optional(Conditions),
    group_by: Type.Optional(GroupBy),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  { name: Type.Optional(Name), type: Type.Optional(PolicyType), unit: Type.Optional(Unit), value: Type.Optional(Value), conditions: Type.Optional(Conditions), group_by: Type.Optional(GroupBy) },
  { additionalProperties: false, minProperties: 1 },
);
const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }) });
const GetQuery = Type.Object({ status: Type.Optional(Status) }, { additionalProperties: false });
const ListQuery = Type.Object(
  { ...PageQuery, workspace_id: Type.Optional(Type.String({ minLength: 1 })), status: Type.Optional(Status), type: Type.Optional(PolicyType), unit: Type.Optional(Unit) },
  { additionalProperties: false },
);

/** A policy as the API shows it (gateway-spec.md, "Rate-limits policy object"); lists omit `object`. */
function present(p: RateLimitPolicy): Record<string, unknown> {
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

const single = (p: RateLimitPolicy) => ({ ...present(p), object: 'policy_rate_limits' });

/** A policy the caller may see, in the wanted status (404 otherwise). */
async function load(deps: GatewayDeps, request: FastifyRequest, status: RateLimitPolicy['status'] = 'active'): Promise<RateLimitPolicy> {
  const id = (request.params as Static<typeof IdParams>).id.toLowerCase();
  const p = await getRateLimitPolicy(deps.store, id, workspaceScope(request, deps.runtime));
  if (!p || p.status !== status) throw new GatewayError('not_found', `Unknown ${status} rate-limits policy '${id}'.`, { param: 'id' });
  return p;
}

/** An active policy to change: 404 when unknown, 409 when archived (archiving is final). */
async function loadWritable(deps: GatewayDeps, request: FastifyRequest): Promise<RateLimitPolicy> {
  const id = (request.params as Static<typeof IdParams>).id.toLowerCase();
  const p = await getRateLimitPolicy(deps.store, id, workspaceScope(request, deps.runtime));
  if (!p) throw new GatewayError('not_found', `Unknown rate-limits policy '${id}'.`, { param: 'id' });
  if (p.status === 'archived') throw new GatewayError('conflict', `Rate-limits policy '${id}' is archived and cannot be changed.`, { param: 'id' });
  return p;
}

/**
 * `/v1/policies/rate-limits`: create, update, archive (DELETE), read and list rate-limit policies.
 * Every write publishes a new runtime snapshot, so enforcement changes on every replica within 1 s.
 * Scopes `rate_limits.read` / `rate_limits.write`.
 */
export function registerRateLimitPolicyRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const tags = ['rate-limit policies'];
  const base = '/v1/policies/rate-limits';

  app.post(base, { config: { permission: 'rate_limits.write' }, schema: { body: CreateBody, tags, summary: 'Create a rate-limits policy' } }, async (request, reply) => {
    const key = request.gw.key!;
    const body = request.body as Static<typeof CreateBody>;
    checkPolicyKeys(body.conditions, body.group_by);
    const workspaceId = writeWorkspace(request, deps.runtime, body.workspace_id);
    const now = deps.clock.now();
    const policy: RateLimitPolicy = {
      id: uuid(),
      organisation_id: deps.runtime.current.workspacesById.get(workspaceId)?.organisation_id ?? key.organisationId,
      workspace_id: workspaceId,
      name: body.name ?? null,
      type: body.type,
      unit: body.unit,
      value: body.value,
      conditions: body.conditions ?? [],
      group_by: body.group_by ?? [],
      status: 'active',
      created_at: now,
      updated_at: now,
    };
    await insertRateLimitPolicy(deps.store, policy);
    await deps.runtime.changed();
    return reply.code(201).send(single(policy));
  });

  app.get(base, { config: { permission: 'rate_limits.read' }, schema: { querystring: ListQuery, tags, summary: 'List rate-limits policies' } }, async (request) => {
    const q = request.query as Static<typeof ListQuery>;
    const { rows, total } = await listRateLimitPolicies(deps.store, {
      workspaceIds: workspaceScope(request, deps.runtime, q.workspace_id),
      status: q.status ?? 'active',
      type: q.type,
      unit: q.unit,
      ...pageOf(q),
    });
    return { object: 'list', data: rows.map(present), total };
  });

  app.get(`${base}/:id`, { config: { permission: 'rate_limits.read' }, schema: { params: IdParams, querystring: GetQuery, tags, summary: 'Read a rate-limits policy' } }, async (request) => {
    return single(await load(deps, request, (request.query as Static<typeof GetQuery>).status));
  });

  app.put(`${base}/:id`, { config: { permission: 'rate_limits.write' }, schema: { params: IdParams, body: UpdateBody, tags, summary: 'Update a rate-limits policy' } }, async (request) => {
    const current = await loadWritable(deps, request);
    const body = request.body as Static<typeof UpdateBody>;
    checkPolicyKeys(body.conditions, body.group_by);
    await updateRateLimitPolicy(deps.store, current.id, body, deps.clock.now());
    await deps.runtime.changed();
    return single((await getRateLimitPolicy(deps.store, current.id))!);
  });

  app.delete(`${base}/:id`, { config: { permission: 'rate_limits.write' }, schema: { params: IdParams, tags, summary: 'Delete (archive) a rate-limits policy' } }, async (request) => {
    const current = await loadWritable(deps, request);
    await updateRateLimitPolicy(deps.store, current.id, { status: 'archived' }, deps.clock.now());
    await deps.runtime.changed();
    return single((await getRateLimitPolicy(deps.store, current.id))!);
  });
}
