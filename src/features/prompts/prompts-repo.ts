import type { Kysely } from 'kysely';
import type { Store } from '../../infra/store/store.js';
import type { Database } from '../../infra/store/schema.js';
import type { NewPromptVersionRow, PromptRow, PromptVersionRow } from './prompts-tables.js';
import type { TenantScope } from '../../kernel/tenant-scope.js';
import { assertInScope, inList } from '../../infra/store/repos/tenant.js';

/** Prompts are chat templates; partials are template fragments included with `{{> slug}}`. */
export type PromptKind = 'prompt' | 'partial';

/** A stored prompt or partial (its identity; the content lives in its versions). */
export interface StoredPrompt {
  id: string;
  organisation_id: string;
  workspace_id: string;
  kind: PromptKind;
  name: string;
  slug: string;
  /** The version used when a reference names no version. */
  published_version: number;
  latest_version: number;
  /** Saved credential: id or slug of a virtual key. */
  virtual_key: string | null;
  /** Saved credential: a provider slug `@<slug>`. */
  provider: string | null;
  created_at: number;
  updated_at: number;
}

/** One immutable version of a prompt or partial. */
export interface PromptVersion {
  version: number;
  /** The template text: a JSON array of chat messages, or plain text. */
  template: string;
  parameters: Record<string, unknown>;
  model: string | null;
  metadata: Record<string, unknown>;
  description: string | null;
  created_at: number;
}

/** The content fields a new version carries. */
export type VersionFields = Omit<PromptVersion, 'version' | 'created_at'>;

/** Prompt-level fields a write may change without making a version. */
export interface PromptPatch {
  name?: string;
  virtual_key?: string | null;
  provider?: string | null;
}

/** Runs `fn` in `db` when it is a transaction, else in a transaction of its own. */
function atomically<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** The scope's prompt ids (a subquery: version rows carry no workspace of their own). */
function scopedIds(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('prompts')
    .select('id')
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope));
}

/** Creates a prompt or partial of the scope with its version 1, published. */
export async function insertPrompt(db: Kysely<Database>, scope: TenantScope, p: StoredPrompt, first: VersionFields): Promise<void> {
  assertInScope(scope, p.organisation_id, p.workspace_id);
  await atomically(db, async (trx) => {
    await trx.insertInto('prompts').values(p).execute();
    await trx
      .insertInto('prompt_versions')
      .values(versionRow(p.id, 1, first, p.created_at))
      .execute();
  });
}

/**
 * Adds a version after the latest of a prompt of the scope (and applies prompt-level changes); returns
 * its number. The latest version is bumped with one `update … returning`, so concurrent writers get
 * distinct numbers.
 */
export async function addPromptVersion(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  fields: VersionFields,
  patch: PromptPatch,
  now: number,
): Promise<number> {
  return atomically(db, async (trx) => {
    const row = await trx
      .updateTable('prompts')
      .set((eb) => ({ latest_version: eb('latest_version', '+', 1), updated_at: now, ...patch }))
      .where('id', '=', id)
      .where('organisation_id', '=', scope.organisationId)
      .where('workspace_id', 'in', inList(scope))
      .returning('latest_version')
      .executeTakeFirstOrThrow();
    const version = Number(row.latest_version);
    await trx
      .insertInto('prompt_versions')
      .values(versionRow(id, version, fields, now))
      .execute();
    return version;
  });
}

/** Changes prompt-level fields of a prompt of the scope only (no new version). */
export async function updatePrompt(db: Kysely<Database>, scope: TenantScope, id: string, patch: PromptPatch, now: number): Promise<void> {
  await db
    .updateTable('prompts')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .execute();
}

/** Publishes an existing version of a prompt of the scope; false when the version (or prompt) does not exist. */
export async function publishPromptVersion(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  version: number,
  now: number,
): Promise<boolean> {
  const exists = await db
    .selectFrom('prompt_versions')
    .select('version')
    .where('prompt_id', '=', id)
    .where('prompt_id', 'in', scopedIds(db, scope))
    .where('version', '=', version)
    .executeTakeFirst();
  if (!exists) return false;
  await db
    .updateTable('prompts')
    .set({ published_version: version, updated_at: now })
    .where('id', '=', id)
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .execute();
  return true;
}

/** Deletes a prompt or partial of the scope with every version. */
export async function deletePrompt(db: Kysely<Database>, scope: TenantScope, id: string): Promise<void> {
  await atomically(db, async (trx) => {
    await trx.deleteFrom('prompt_versions').where('prompt_id', '=', id).where('prompt_id', 'in', scopedIds(trx, scope)).execute();
    await trx
      .deleteFrom('prompts')
      .where('id', '=', id)
      .where('organisation_id', '=', scope.organisationId)
      .where('workspace_id', 'in', inList(scope))
      .execute();
  });
}

/** One prompt or partial of the scope by id or slug. */
export async function getPrompt(
  db: Kysely<Database>,
  scope: TenantScope,
  kind: PromptKind,
  idOrSlug: string,
): Promise<StoredPrompt | undefined> {
  if (scope.workspaceIds.length === 0) return undefined;
  const row = await db
    .selectFrom('prompts')
    .selectAll()
    .where('kind', '=', kind)
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .orderBy('created_at')
    .executeTakeFirst();
  return row && toPrompt(row);
}

/** One version of a prompt of the scope, or undefined. */
export async function getPromptVersion(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  version: number,
): Promise<PromptVersion | undefined> {
  const row = await db
    .selectFrom('prompt_versions')
    .selectAll()
    .where('prompt_id', '=', id)
    .where('prompt_id', 'in', scopedIds(db, scope))
    .where('version', '=', version)
    .executeTakeFirst();
  return row && toVersion(row);
}

/** Every version of a prompt of the scope, newest first. */
export async function listPromptVersions(db: Kysely<Database>, scope: TenantScope, id: string): Promise<PromptVersion[]> {
  const rows = await db
    .selectFrom('prompt_versions')
    .selectAll()
    .where('prompt_id', '=', id)
    .where('prompt_id', 'in', scopedIds(db, scope))
    .orderBy('version', 'desc')
    .execute();
  return rows.map(toVersion);
}

/** A page of the scope's prompts or partials, newest first, each with its published version, and the total. */
export async function listPrompts(
  db: Kysely<Database>,
  scope: TenantScope,
  f: { kind: PromptKind; limit: number; offset: number },
): Promise<{ rows: Array<StoredPrompt & { published: PromptVersion }>; total: number }> {
  if (scope.workspaceIds.length === 0) return { rows: [], total: 0 };
  const base = db
    .selectFrom('prompts')
    .where('prompts.kind', '=', f.kind)
    .where('prompts.organisation_id', '=', scope.organisationId)
    .where('prompts.workspace_id', 'in', inList(scope));
  const [rows, count] = await Promise.all([
    base
      .innerJoin('prompt_versions as v', (j) =>
        j.onRef('v.prompt_id', '=', 'prompts.id').onRef('v.version', '=', 'prompts.published_version'),
      )
      .selectAll('prompts')
      .select(['v.template', 'v.parameters', 'v.model', 'v.metadata', 'v.description', 'v.created_at as version_created_at'])
      .orderBy('prompts.created_at', 'desc')
      .orderBy('prompts.id')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return {
    rows: rows.map((r) => ({
      ...toPrompt(r),
      published: toVersion({
        prompt_id: r.id,
        version: r.published_version,
        template: r.template,
        parameters: r.parameters,
        model: r.model,
        metadata: r.metadata,
        description: r.description,
        created_at: r.version_created_at,
      }),
    })),
    total: Number(count?.n ?? 0),
  };
}

/**
 * Every prompt and partial with all their versions, or those of some workspaces (the runtime
 * snapshot's source: the only unscoped read).
 */
export async function loadAllPrompts(
  store: Store,
  workspaceIds?: readonly string[],
): Promise<Array<StoredPrompt & { versions: PromptVersion[] }>> {
  if (workspaceIds && workspaceIds.length === 0) return [];
  let prompts = store.db.selectFrom('prompts').selectAll();
  let versions = store.db.selectFrom('prompt_versions').selectAll();
  if (workspaceIds) {
    const ids = [...workspaceIds];
    prompts = prompts.where('workspace_id', 'in', ids);
    versions = versions.where('prompt_id', 'in', store.db.selectFrom('prompts').select('id').where('workspace_id', 'in', ids));
  }
  const [promptRows, versionRows] = await Promise.all([prompts.execute(), versions.orderBy('prompt_id').orderBy('version').execute()]);
  const byPrompt = new Map<string, PromptVersion[]>();
  for (const v of versionRows) {
    let list = byPrompt.get(v.prompt_id);
    if (!list) byPrompt.set(v.prompt_id, (list = []));
    list.push(toVersion(v));
  }
  return promptRows.map((p) => ({ ...toPrompt(p), versions: byPrompt.get(p.id) ?? [] }));
}

function versionRow(promptId: string, version: number, f: VersionFields, now: number): NewPromptVersionRow {
  return {
    prompt_id: promptId,
    version,
    template: f.template,
    parameters: JSON.stringify(f.parameters),
    model: f.model,
    metadata: JSON.stringify(f.metadata),
    description: f.description,
    created_at: now,
  };
}

function toPrompt(r: PromptRow): StoredPrompt {
  return {
    id: r.id,
    organisation_id: r.organisation_id,
    workspace_id: r.workspace_id,
    kind: r.kind as PromptKind,
    name: r.name,
    slug: r.slug,
    published_version: Number(r.published_version),
    latest_version: Number(r.latest_version),
    virtual_key: r.virtual_key,
    provider: r.provider,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

function toVersion(r: PromptVersionRow): PromptVersion {
  return {
    version: Number(r.version),
    template: r.template,
    parameters: JSON.parse(r.parameters) as Record<string, unknown>,
    model: r.model,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    description: r.description,
    created_at: Number(r.created_at),
  };
}
