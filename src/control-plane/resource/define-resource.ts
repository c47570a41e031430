import type { Kysely } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { Static, TObject, TSchema, TString } from 'typebox';
import type { Database } from '../../infra/store/schema.js';
import type { Principal } from '../../kernel/principal.js';
import type { Permission } from '../../kernel/permissions.js';
import type { TenantScope } from '../../kernel/tenant-scope.js';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import type { AfterCommit } from '../../kernel/after-commit.js';

/** What a resource's code gets for one request. */
export interface ResourceContext {
  readonly deps: GatewayDeps;
  readonly request: FastifyRequest;
  readonly principal: Principal;
  /** The tenant the request may act on (narrowed by a `workspace_id` in the query or body). */
  readonly scope: TenantScope;
  /** The workspace a create targets: the requested one, else the principal's (or its organisation's default). */
  readonly workspaceId: string;
  /** The write's transaction (for writes), or the store (for reads). Use it for every query. */
  readonly db: Kysely<Database>;
  readonly now: number;
  /**
   * Work a write starts once its transaction has committed (never for one rolled back), outside the transaction:
   * a call to another system the write should be followed by. The answer does not wait for it; a failure is logged.
   */
  readonly afterCommit: AfterCommit;
}

/**
 * Table access of a resource: every call takes the tenant scope and sees only its rows. Reads also get
 * the principal, for tables whose rows and fields are visible per principal within a tenant (request
 * logs: `dataVisibility`); a repo of rows visible to the whole tenant ignores it.
 */
export interface ScopedRepo<R, Q> {
  /** One live row by id (or slug), or undefined (another tenant's row, or one the viewer may not see, is undefined too). */
  get(db: Kysely<Database>, scope: TenantScope, idOrSlug: string, viewer: Principal): Promise<R | undefined>;
  /** `GET /:id`'s lookup when its path names more than a row (a prompt's `@latest` / `@N` version); default `get`. */
  read?(db: Kysely<Database>, scope: TenantScope, ref: string, viewer: Principal): Promise<R | undefined>;
  /** A page of live rows, newest first, with the total of the filter. */
  list(
    db: Kysely<Database>,
    scope: TenantScope,
    query: Q,
    page: { limit: number; offset: number },
    viewer: Principal,
  ): Promise<{ rows: R[]; total: number }>;
  /** Archives or deletes the row (the declaration's `removal`); may return the row as now stored. Absent on a read-only resource. */
  remove?(db: Kysely<Database>, scope: TenantScope, record: R, now: number): Promise<R | void>;
}

/** What a write hands back: the row as now stored, an answer when it differs from `present`, audit details. */
export interface WriteResult<R> {
  record: R;
  /** The answer when it is not `present(record)` (a create that shows a secret once). */
  answer?: unknown;
  /** Non-secret facts for the audit entry. */
  details?: Record<string, unknown>;
}

/** A custom action on one row: `<method> <path>/:id<suffix>`. */
export interface ResourceAction<R, B extends TSchema = TSchema, A extends TSchema = TSchema, Q extends TObject = TObject> {
  /** The verb of its audit action (`<resource>.<verb>`), for writes. */
  verb: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Appended to `<path>/:id`, e.g. `/rotate`. */
  suffix: string;
  permission: Permission;
  /** Writes run in a transaction with an audit row and publish their runtime sections; reads do not. */
  write: boolean;
  summary: string;
  body?: B;
  /** Its query string (validated; unknown members are 400), handed to `run`. */
  query?: Q;
  answer: A;
  /** Runtime sections a write changes, when not the resource's own (`[]`: none). */
  runtimeSections?: readonly string[];
  run(
    ctx: ResourceContext,
    record: R,
    body: Static<B>,
    query: Static<Q>,
  ): Promise<{ answer: Static<A>; record?: R; details?: Record<string, unknown> }>;
}

/**
 * A read-only action on the collection: `<method> <path><suffix>` (e.g. `POST /v1/configs/explain`). It
 * runs in the principal's tenant scope with no transaction and no audit row, and changes nothing.
 */
export interface CollectionAction<B extends TSchema = TSchema, A extends TSchema = TSchema> {
  method: 'GET' | 'POST';
  /** Appended to `<path>`, e.g. `/explain`; must not collide with an id. */
  suffix: string;
  permission: Permission;
  summary: string;
  body?: B;
  answer: A;
  run(ctx: ResourceContext, body: Static<B>): Promise<Static<A>>;
}

/**
 * An admin resource, declared once: its paths, schemas, table access, presentation, removal, custom
 * actions, the permission of each route and the runtime sections its writes change. `mountResource`
 * turns it into routes.
 */
export interface ResourceDefinition<R, C extends TSchema, U extends TSchema, Q extends TObject, A extends TSchema> {
  /** Singular name: the answer's `object` and the audit `resource_type` (`config`, `api_key`). */
  name: string;
  /** Collection paths (the first is canonical; others are aliases), e.g. `/v1/configs`. */
  paths: readonly string[];
  tag: string;
  /** Shown in summaries: `a config`, `configs`. */
  noun: { one: string; many: string };
  /** `write` guards POST, PUT and DELETE (a read-only resource has none). */
  permissions: { read: Permission; write?: Permission };
  /** Runtime snapshot sections a write changes (published after commit). */
  runtimeSections: readonly string[];
  /**
   * A read-only resource (rows written elsewhere, like request logs) declares neither `create`,
   * `update`, `removal` nor their schemas: only its reads (and read actions) are mounted.
   */
  schemas: {
    create?: C;
    update?: U;
    /** Filters of the list (paging and `workspace_id` are added). */
    listQuery: Q;
    answer: A;
    /** The answer of a create when it is more than `answer` (a secret shown once). */
    created?: TSchema;
  };
  repo: ScopedRepo<R, Static<Q>>;
  /** `archive`: DELETE archives; `delete`: DELETE removes. Either answers `{id, object, deleted: true}`. No DELETE when absent. */
  removal?: 'archive' | 'delete';
  idOf(record: R): string;
  workspaceOf(record: R): string | null;
  present(record: R): Static<A>;
  /** Builds and inserts a row (in the write's transaction, `ctx.db`). No POST when absent. */
  create?(ctx: ResourceContext, body: Static<C>): Promise<WriteResult<R>>;
  /** Applies an update (in the write's transaction) and returns the row as now stored. No PUT when absent. */
  update?(ctx: ResourceContext, record: R, body: Static<U>): Promise<WriteResult<R>>;
  actions?: ReadonlyArray<ResourceAction<R>>;
  /** Read-only actions on the collection (no row loaded). */
  collectionActions?: ReadonlyArray<CollectionAction>;
  /** Schema of the `:id` path parameter (default: a non-empty string). */
  idSchema?: TString;
  /** Name of the id path parameter (default `id`), as /openapi.json and validation errors show it. */
  idParam?: string;
  /** Query of `GET /:id` (passed to `readable`). */
  readQuery?: TObject;
  /** Whether `GET /:id` shows a loaded row for this query (default: always); 404 otherwise. */
  readable?(record: R, query: unknown): boolean;
  /** Throws (409 `conflict`, ...) when a loaded row cannot be changed; runs before every write on it. */
  writable?(record: R): void;
  /** `DELETE` answers `{id, object, deleted: true}` (default) or the row as stored after its removal. */
  removeAnswer?: 'deleted' | 'record';
  /** List items when they differ from `present`. */
  listItem?: { schema: TSchema; present(record: R): unknown };
  /**
   * A path parameter of `paths` naming the workspace the resource lives in (id or slug), e.g. `id` of
   * `/v1/workspaces/:id/members`: it narrows the tenant scope like a `workspace_id` (another tenant's
   * workspace is 404).
   */
  pathWorkspace?: string;
  /** Throws (403 `forbidden`, ...) when the principal may not list with this query; runs (and is awaited) before the list. */
  beforeList?(ctx: ResourceContext, query: Static<Q>): void | Promise<void>;
  /** Throws (403, 409, ...) when the principal may not remove this row; runs in the removal's transaction. */
  beforeRemove?(ctx: ResourceContext, record: R): void | Promise<void>;
  /** What a unique violation on write means (default: a slug clash). */
  unique?: { param: string; message: string };
  /**
   * Writes to rows of an archived workspace are 409 `conflict` (the workspace is read-only); a resource
   * that changes the workspace's own status (the workspaces resource) sets this to check for itself.
   */
  archivedWorkspaceWrites?: boolean;
}

/** A declared resource, as `mountResource` and the conformance suite see it. */
export type Resource<R = unknown> = ResourceDefinition<R, TSchema, TSchema, TObject, TSchema>;

/** Declares a resource (identity at run time; the types tie schemas, rows and handlers together). */
export function defineResource<R, C extends TSchema, U extends TSchema, Q extends TObject, A extends TSchema>(
  def: ResourceDefinition<R, C, U, Q, A>,
): ResourceDefinition<R, C, U, Q, A> {
  return def;
}

/** Declares a custom action (types its body and answer). */
export function defineAction<R, B extends TSchema, A extends TSchema, Q extends TObject = TObject>(
  action: ResourceAction<R, B, A, Q>,
): ResourceAction<R> {
  return action as unknown as ResourceAction<R>;
}

/** Declares a read-only collection action (types its body and answer). */
export function defineCollectionAction<B extends TSchema, A extends TSchema>(action: CollectionAction<B, A>): CollectionAction {
  return action as unknown as CollectionAction;
}
