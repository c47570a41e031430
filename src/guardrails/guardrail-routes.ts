/**
 * `/v1/guardrails`: stored guardrails (a name, `checks[]` of `{id, parameters}` and `actions`
 * `{deny, async, on_fail, on_success}`), referenced from configs by id or slug. Checks are validated
 * at create and update (400 `invalid_config` naming e.g. `checks[0].parameters.words`). Lists page
 * by `current_page` / `page_size` and filter by `ids` (comma-separated ids or slugs).
 */
import { Type, type Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { uuid } from '../lib/ids.js';
import { isUniqueViolation } from '../store/store.js';
import { deleteGuardrail, getGuardrail, insertGuardrail, listGuardrails, updateGuardrail, type StoredGuardrail } from '../store/repos/guardrails.js';
import type { GatewayDeps } from '../server/deps.js';
import { workspaceScope, writeWorkspace } from '../server/middleware/auth/auth.js';
import { iso, pageOf } from '../admin/paging.js';
import { getCheck } from './catalogue.js';
import { actionsOf } from './guardrail-spec.js';

const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,127}$' });
const Feedback = Type.Object(
  { value: Type.Optional(Type.Number()), weight: Type.Optional(Type.Number()), metadata: Type.Optional(Type.Object({})) },
  { additionalProperties: false },
);
const Outcome = Type.Object({ deny: Type.Optional(Type.Boolean()), feedback: Type.Optional(Feedback) }, { additionalProperties: false });
const Actions = Type.Object(
  { deny: Type.Optional(Type.Boolean()), async: Type.Optional(Type.Boolean()), on_fail: Type.Optional(Outcome), on_success: Type.Optional(Outcome) },
  { additionalProperties: false },
);
const Check = Type.Object({ id: Type.String({ minLength: 1 }), parameters: Type.Optional(Type.Object({})) }, { additionalProperties: false });
const Checks = Type.Array(Check, { minItems: 1, maxItems: 50 });
const CreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), slug: Type.Optional(Slug), workspace_id: Type.Optional(Type.String()), checks: Checks, actions: Type.Optional(Actions) },
  { additionalProperties: false },
);
const UpdateBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), checks: Type.Optional(Checks), actions: Type.Optional(Actions) }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String() });
// Query strings arrive as text (the app does not coerce types): page numbers are digit strings here.
const PageNumber = Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$', description: 'a whole number, 0 or more' }));
const ListQuery = Type.Object(
  { current_page: PageNumber, page_size: PageNumber, workspace_id: Type.Optional(Type.String()), ids: Type.Optional(Type.String({ description: 'comma-separated guardrail ids or slugs' })) },
  { additionalProperties: false },
);

type CheckBody = Static<typeof Check>;

/** Validates the checks of a stored guardrail (400 `invalid_config` naming `checks[i]...`). */
function validateChecks(checks: CheckBody[]): StoredGuardrail['checks'] {
  return checks.map((c, i) => {
    const def = getCheck(c.id);
    if (!def) throw new GatewayError('invalid_config', `checks[${i}].id names an unknown guardrail check '${c.id}'`, { param: `checks[${i}].id` });
    const parameters = (c.parameters ?? {}) as Record<string, unknown>;
    def.validateParams(parameters, `checks[${i}].parameters`);
    return { id: c.id, parameters };
  });
}

function present(g: StoredGuardrail): Record<string, unknown> {
  return {
    id: g.id,
    object: 'guardrail',
    name: g.name,
    slug: g.slug,
    workspace_id: g.workspace_id,
    organisation_id: g.organisation_id,
    checks: g.checks,
    actions: g.actions,
    created_at: iso(g.created_at),
    updated_at: iso(g.updated_at),
  };
}

function slugify(name: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || 'guardrail';
  return `${base}-${uuid().slice(0, 8)}`;
}

async function load(deps: GatewayDeps, request: FastifyRequest, idOrSlug: string): Promise<StoredGuardrail> {
  const g = await getGuardrail(deps.store, idOrSlug, workspaceScope(request, deps.runtime));
  if (!g) throw new GatewayError('not_found', `Unknown guardrail '${idOrSlug}'.`);
  return g;
}

/** Registers the `/v1/guardrails` routes (scopes `guardrails.read` / `guardrails.write`). */
export function registerGuardrailRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const tags = ['guardrails'];
  app.post('/v1/guardrails', { config: { permission: 'guardrails.write' }, schema: { body: CreateBody, tags, summary: 'Store a guardrail' } }, async (request, reply) => {
    const key = request.gw.key!;
    const body = request.body as Static<typeof CreateBody>;
    const checks = validateChecks(body.checks);
    const now = deps.clock.now();
    const record: StoredGuardrail = {
      id: uuid(),
      organisation_id: key.organisationId,
      workspace_id: writeWorkspace(request, deps.runtime, body.workspace_id),
      name: body.name,
      slug: body.slug ?? slugify(body.name),
      checks,
      actions: actionsOf(body.actions ?? {}),
      created_at: now,
      updated_at: now,
    };
    try {
      await insertGuardrail(deps.store, record);
    } catch (err) {
      if (isUniqueViolation(err)) throw new GatewayError('conflict', `A guardrail with slug '${record.slug}' already exists in this workspace.`, { param: 'slug' });
      throw err;
    }
    await deps.runtime.changed();
    return reply.code(201).send(present(record));
  });

  app.get('/v1/guardrails', { config: { permission: 'guardrails.read' }, schema: { querystring: ListQuery, tags, summary: 'List guardrails (paged; `ids` filters by comma-separated ids or slugs)' } }, async (request) => {
    const q = request.query as Static<typeof ListQuery>;
    const ids = q.ids === undefined ? undefined : q.ids.split(',').map((s) => s.trim()).filter(Boolean);
    const page = pageOf({ current_page: q.current_page === undefined ? undefined : Number(q.current_page), page_size: q.page_size === undefined ? undefined : Math.min(Number(q.page_size), 1000) });
    const { rows, total } = await listGuardrails(deps.store, { workspaceIds: workspaceScope(request, deps.runtime, q.workspace_id), ids, ...page });
    return { object: 'list', data: rows.map(present), total };
  });

  app.get('/v1/guardrails/:id', { config: { permission: 'guardrails.read' }, schema: { params: IdParams, tags, summary: 'Read a guardrail (id or slug)' } }, async (request) => {
    return present(await load(deps, request, (request.params as { id: string }).id));
  });

  app.put('/v1/guardrails/:id', { config: { permission: 'guardrails.write' }, schema: { params: IdParams, body: UpdateBody, tags, summary: 'Update a guardrail' } }, async (request) => {
    const g = await load(deps, request, (request.params as { id: string }).id);
    const body = request.body as Static<typeof UpdateBody>;
    const checks = body.checks ? validateChecks(body.checks) : undefined;
    const actions = body.actions ? actionsOf(body.actions) : undefined;
    await updateGuardrail(deps.store, g.id, { name: body.name, checks, actions }, deps.clock.now());
    await deps.runtime.changed();
    return present((await getGuardrail(deps.store, g.id))!);
  });

  app.delete('/v1/guardrails/:id', { config: { permission: 'guardrails.write' }, schema: { params: IdParams, tags, summary: 'Delete a guardrail' } }, async (request) => {
    const g = await load(deps, request, (request.params as { id: string }).id);
    await deleteGuardrail(deps.store, g.id);
    await deps.runtime.changed();
    return { id: g.id, object: 'guardrail', deleted: true };
  });
}
