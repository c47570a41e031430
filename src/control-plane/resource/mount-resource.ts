import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TObject, type TSchema } from 'typebox';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isUniqueViolation, recordRuntimeChange } from '../../infra/store/store.js';
import type { RuntimeChange } from '../../kernel/runtime-change.js';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import { principalOf, tenantScope } from '../../identity/authorize.js';
import { writeAudit } from './audit.js';
import { ListAnswer, PageQuery, pageOf } from '../../identity/paging.js';
import type { Resource, ResourceContext, WriteResult } from './define-resource.js';
import { startAfterCommit } from './after-commit.js';
import type { AfterCommitTask } from '../../kernel/after-commit.js';
import { Nullable } from '../../foundation/spec/nullable.js';

/** The decisions.md error body, as every admin route documents its failures. */
export const ErrorAnswer = Type.Object(
  {
    error: Type.Object(
      { message: Type.String(), type: Type.String(), param: Nullable(Type.String()), code: Nullable(Type.String()) },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

const Deleted = Type.Object({ id: Type.String(), object: Type.String(), deleted: Type.Boolean() });

function answers(ok: number, schema: TSchema) {
  return { [ok]: schema, '4xx': ErrorAnswer, '5xx': ErrorAnswer };
}

function requestedWorkspace(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && 'workspace_id' in value && typeof value.workspace_id === 'string')
    return value.workspace_id;
  return undefined;
}

/**
 * The context of one request: its principal, tenant scope (narrowed by the resource's workspace path
 * parameter, else by `workspace_id`) and target workspace.
 */
function contextOf(deps: GatewayDeps, request: FastifyRequest, workspaceRequest: unknown, pathWorkspace?: string): ResourceContext {
  const principal = principalOf(request);
  const fromPath = pathWorkspace === undefined ? undefined : (request.params as Record<string, string | undefined>)[pathWorkspace];
  const requested = fromPath ?? requestedWorkspace(workspaceRequest);
  const scope = tenantScope(principal, deps.runtime.current, requested);
  const tasks: AfterCommitTask[] = [];
  const ctx: ResourceContext = {
    afterCommit: (task) => void tasks.push(task),
    deps,
    request,
    principal,
    scope,
    db: deps.store.db,
    now: deps.clock.now(),
    // Read only by writes that create: a list or read of an organisation without a default workspace needs none.
    get workspaceId() {
      return requested !== undefined ? scope.workspaceIds[0]! : (principal.workspaceId ?? request.gw.workspaceId);
    },
  };
  afterCommitTasks.set(ctx, tasks);
  return ctx;
}

/** The tasks a request's writes asked to start after their commit (`ResourceContext.afterCommit`), by the request's context. */
const afterCommitTasks = new WeakMap<ResourceContext, AfterCommitTask[]>();

/**
 * Runs a write: the change, its one audit row and its runtime change record in one transaction; a
 * unique violation is 409 `conflict`; after the commit the runtime publishes the changed sections
 * (`sections`: an action's own, default the resource's; none for an action declaring `[]`).
 */
async function inTransaction<R>(
  res: Resource<R>,
  ctx: ResourceContext,
  verb: string,
  fn: (ctx: ResourceContext) => Promise<WriteResult<R>>,
  sections: readonly string[] = res.runtimeSections,
): Promise<WriteResult<R>> {
  // An action that declares no runtime sections (`[]`) changes nothing the runtime reads: no outbox row, no reload.
  const publishes = sections === res.runtimeSections || sections.length > 0;
  let changes: RuntimeChange[] = [];
  let out: WriteResult<R>;
  try {
    out = await ctx.deps.store.db.transaction().execute(async (trx) => {
      const inner = { ...ctx, db: trx };
      const result = await fn(inner);
      const workspaceId = res.workspaceOf(result.record);
      if (
        workspaceId !== null &&
        !res.archivedWorkspaceWrites &&
        ctx.deps.runtime.current.workspacesById.get(workspaceId)?.status === 'archived'
      ) {
        throw new GatewayError('conflict', `Workspace '${workspaceId}' is archived: its resources are read-only until it is restored.`, {
          param: 'workspace_id',
        });
      }
      changes = sections.map((section) => ({ section, workspaceId }));
      await writeAudit(trx, ctx.request, ctx.principal, ctx.now, {
        action: `${res.name}.${verb}`,
        resourceType: res.name,
        resourceId: res.idOf(result.record),
        workspaceId,
        details: result.details,
      });
      if (publishes) await recordRuntimeChange(trx, changes);
      return result;
    });
  } catch (err) {
    // Rolled back: what was to follow the commit must not run.
    afterCommitTasks.get(ctx)?.splice(0);
    if (isUniqueViolation(err)) {
      if (res.unique) throw new GatewayError('conflict', res.unique.message, { param: res.unique.param });
      throw new GatewayError('conflict', `A ${res.noun.one.replace(/^an? /, '')} with this slug already exists in this workspace.`, {
        param: 'slug',
      });
    }
    throw err;
  }
  if (publishes) await ctx.deps.runtime.committed(changes);
  const tasks = afterCommitTasks.get(ctx);
  if (tasks) startAfterCommit(tasks, ctx.deps.logger);
  return out;
}

/** The row an id names (`GET /:id` with `reading`: through `repo.read` when declared); 404 when unknown. */
async function load<R>(res: Resource<R>, ctx: ResourceContext, id: string, reading = false): Promise<R> {
  const record =
    reading && res.repo.read
      ? await res.repo.read(ctx.db, ctx.scope, id, ctx.principal)
      : await res.repo.get(ctx.db, ctx.scope, id, ctx.principal);
  if (record === undefined)
    throw new GatewayError('not_found', `Unknown ${res.noun.one.replace(/^an? /, '')} '${id}'.`, { param: res.idParam ?? 'id' });
  return record;
}

/** A row a write may change (`writable` refuses archived rows and the like). */
async function loadWritable<R>(res: Resource<R>, ctx: ResourceContext, id: string): Promise<R> {
  const record = await load(res, ctx, id);
  res.writable?.(record);
  return record;
}

function emptyBody(request: FastifyRequest, _reply: unknown, done: () => void): void {
  request.body ??= {};
  done();
}

/**
 * Turns a declared resource into its routes, for each of its paths: `POST` (201), `GET` list (paged,
 * `total`), `GET /:id`, `PUT /:id`, `DELETE /:id` (the writes only when declared: a read-only resource
 * has none), its collection actions and its custom actions. Each route declares its
 * permission (checked by the route guard), is validated by its TypeBox schemas, acts within the
 * principal's tenant scope (another tenant's id is 404), and documents every answer for /openapi.json.
 */
export function mountResource<R>(app: FastifyInstance, deps: GatewayDeps, res: Resource<R>): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = [res.tag];
  const idParam = res.idParam ?? 'id';
  const WorkspaceParam = res.pathWorkspace === undefined ? {} : { [res.pathWorkspace]: Type.String({ minLength: 1 }) };
  const IdParams = Type.Object({ ...WorkspaceParam, [idParam]: res.idSchema ?? Type.String({ minLength: 1 }) });
  const BaseParams = res.pathWorkspace === undefined ? undefined : Type.Object(WorkspaceParam);
  const withBase = BaseParams ? { params: BaseParams } : {};
  const context = (request: FastifyRequest, workspaceRequest: unknown) => contextOf(deps, request, workspaceRequest, res.pathWorkspace);
  const idOf = (params: Record<string, string>): string => params[idParam]!;
  const listItem = res.listItem ?? { schema: res.schemas.answer, present: (r: R) => res.present(r) };
  // A list query may take members by pattern (`metadata.<key>` of the logs), still refusing any other.
  const patternProperties = (res.schemas.listQuery as { patternProperties?: Record<string, TSchema> }).patternProperties;
  const ListQuery: TObject = Type.Object(
    { ...PageQuery, workspace_id: Type.Optional(Type.String()), ...res.schemas.listQuery.properties },
    { additionalProperties: false, ...(patternProperties ? { patternProperties } : {}) },
  );
  const { create, update } = res;
  const write = res.permissions.write;
  const remove = res.repo.remove?.bind(res.repo);
  for (const base of res.paths) {
    if (write && create && res.schemas.create) {
      // An optional create body (`Type.Optional`) may be left out: it is validated as `{}`.
      const optionalCreate = Type.IsOptional(res.schemas.create) ? { preValidation: emptyBody } : {};
      typed.post(
        base,
        {
          config: { permission: write },
          ...optionalCreate,
          schema: {
            ...withBase,
            body: res.schemas.create,
            tags,
            summary: `Create ${res.noun.one}`,
            response: answers(201, res.schemas.created ?? res.schemas.answer),
          },
        },
        async (request, reply) => {
          const ctx = context(request, request.body);
          const out = await inTransaction(res, ctx, 'create', (c) => create(c, request.body));
          return reply.code(201).send(out.answer ?? res.present(out.record));
        },
      );
    }

    typed.get(
      base,
      {
        config: { permission: res.permissions.read },
        schema: {
          ...withBase,
          querystring: ListQuery,
          tags,
          summary: `List ${res.noun.many}`,
          response: answers(200, ListAnswer(listItem.schema)),
        },
      },
      async (request) => {
        const ctx = context(request, request.query);
        await res.beforeList?.(ctx, request.query);
        const { rows, total } = await res.repo.list(ctx.db, ctx.scope, request.query, pageOf(request.query), ctx.principal);
        return { object: 'list' as const, data: rows.map((r) => listItem.present(r)), total };
      },
    );

    const readSchema = {
      params: IdParams,
      ...(res.readQuery ? { querystring: res.readQuery } : {}),
      tags,
      summary: `Read ${res.noun.one}`,
      response: answers(200, res.schemas.answer),
    };
    typed.get(`${base}/:${idParam}`, { config: { permission: res.permissions.read }, schema: readSchema }, async (request) => {
      const ctx = context(request, undefined);
      const id = idOf(request.params);
      const record = await load(res, ctx, id, true);
      if (res.readable && !res.readable(record, request.query))
        throw new GatewayError('not_found', `Unknown ${res.noun.one.replace(/^an? /, '')} '${id}'.`, { param: idParam });
      return res.present(record);
    });

    if (write && update && res.schemas.update) {
      typed.put(
        `${base}/:${idParam}`,
        {
          config: { permission: write },
          schema: {
            params: IdParams,
            body: res.schemas.update,
            tags,
            summary: `Update ${res.noun.one}`,
            response: answers(200, res.schemas.answer),
          },
        },
        async (request) => {
          const ctx = context(request, undefined);
          const out = await inTransaction(res, ctx, 'update', async (c) =>
            update(c, await loadWritable(res, c, idOf(request.params)), request.body),
          );
          return out.answer ?? res.present(out.record);
        },
      );
    }

    const removal = res.removal;
    if (write && removal && remove) {
      typed.delete(
        `${base}/:${idParam}`,
        {
          config: { permission: write },
          schema: {
            params: IdParams,
            tags,
            summary: `${removal === 'archive' ? 'Archive' : 'Delete'} ${res.noun.one}`,
            response: answers(200, res.removeAnswer === 'record' ? res.schemas.answer : Deleted),
          },
        },
        async (request) => {
          const ctx = context(request, undefined);
          const out = await inTransaction(res, ctx, removal, async (c) => {
            const record = await loadWritable(res, c, idOf(request.params));
            await res.beforeRemove?.(c, record);
            const after = await remove(c.db, c.scope, record, c.now);
            return { record: after ?? record };
          });
          return res.removeAnswer === 'record' ? res.present(out.record) : { id: res.idOf(out.record), object: res.name, deleted: true };
        },
      );
    }

    for (const action of res.collectionActions ?? []) {
      const schema = {
        ...withBase,
        ...(action.body ? { body: action.body } : {}),
        tags,
        summary: action.summary,
        response: answers(200, action.answer),
      };
      typed.route({
        method: action.method,
        url: `${base}${action.suffix}`,
        config: { permission: action.permission },
        schema,
        handler: (request) => action.run(context(request, undefined), request.body),
      });
    }

    for (const action of res.actions ?? []) {
      const schema = {
        params: IdParams,
        ...(action.body ? { body: action.body } : {}),
        ...(action.query ? { querystring: action.query } : {}),
        tags,
        summary: action.summary,
        response: answers(200, action.answer),
      };
      // An optional body (`Type.Optional`) may be left out: it is validated as `{}`.
      const optionalBody = action.body !== undefined && Type.IsOptional(action.body);
      typed.route({
        method: action.method,
        url: `${base}/:${idParam}${action.suffix}`,
        config: { permission: action.permission },
        schema,
        ...(optionalBody
          ? {
              preValidation: (request: FastifyRequest, _reply: unknown, done: () => void) => {
                request.body ??= {};
                done();
              },
            }
          : {}),
        handler: async (request) => {
          const ctx = context(request, undefined);
          if (!action.write)
            return (
              await action.run(ctx, await load(res, ctx, idOf(request.params)), request.body, request.query as Record<string, unknown>)
            ).answer;
          let answer: unknown;
          await inTransaction(
            res,
            ctx,
            action.verb,
            async (c) => {
              const record = await loadWritable(res, c, idOf(request.params));
              const out = await action.run(c, record, request.body, request.query as Record<string, unknown>);
              answer = out.answer;
              return { record: out.record ?? record, details: out.details };
            },
            action.runtimeSections,
          );
          return answer;
        },
      });
    }
  }
}
