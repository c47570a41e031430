import type { RuntimePage, Store } from '../store.js';
import type { Kysely } from 'kysely';
import type { ConfigsTable, Database } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { assertInScope, inList } from './tenant.js';

/** A stored config with its current version's body. */
export interface StoredConfig {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  status: 'active' | 'archived';
  version: number;
  config: Record<string, unknown>;
  created_at: number;
  updated_at: number;
}

/** Creates a config at version 1 in a workspace of the scope (run it in the caller's transaction). */
export async function insertConfig(db: Kysely<Database>, scope: TenantScope, c: StoredConfig): Promise<void> {
  assertInScope(scope, c.organisation_id, c.workspace_id);
  const { config, ...row } = c;
  await db.insertInto('configs').values(row).execute();
  await db
    .insertInto('config_versions')
    .values({ config_id: c.id, version: c.version, config: JSON.stringify(config), created_at: c.created_at })
    .execute();
}

/** Writes a new version (and optionally renames) of a config of the scope; returns the version number (run it in the caller's transaction). */
export async function updateConfig(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  patch: { name?: string; config?: Record<string, unknown> },
  now: number,
): Promise<number> {
  const cur = await db.selectFrom('configs').selectAll().where('id', '=', id).where('workspace_id', 'in', inList(scope)).executeTakeFirst();
  if (!cur) throw new Error(`Config ${id} is outside the tenant scope.`);
  let version = cur.version;
  if (patch.config) {
    version = cur.version + 1;
    await db
      .insertInto('config_versions')
      .values({ config_id: id, version, config: JSON.stringify(patch.config), created_at: now })
      .execute();
  }
  const set: Partial<ConfigsTable> = { version, updated_at: now };
  if (patch.name !== undefined) set.name = patch.name;
  await db.updateTable('configs').set(set).where('id', '=', id).execute();
  return version;
}

/** Archives a config of the scope. */
export async function archiveConfig(db: Kysely<Database>, scope: TenantScope, id: string, now: number): Promise<void> {
  await db
    .updateTable('configs')
    .set({ status: 'archived', updated_at: now })
    .where('id', '=', id)
    .where('workspace_id', 'in', inList(scope))
    .execute();
}

/** One config of the scope by id or slug, current version, active or not. */
export async function getConfig(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<StoredConfig | undefined> {
  const row = await db
    .selectFrom('configs')
    .innerJoin('config_versions', (j) =>
      j.onRef('config_versions.config_id', '=', 'configs.id').onRef('config_versions.version', '=', 'configs.version'),
    )
    .selectAll('configs')
    .select('config_versions.config as body')
    .where((eb) => eb.or([eb('configs.id', '=', idOrSlug), eb('configs.slug', '=', idOrSlug)]))
    .where('configs.workspace_id', 'in', inList(scope))
    .executeTakeFirst();
  return row && fromRow(row);
}

/** The versions of a config of the scope, newest first. */
export async function listConfigVersions(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
): Promise<Array<{ version: number; config: Record<string, unknown>; created_at: number }>> {
  const rows = await db
    .selectFrom('config_versions')
    .selectAll('config_versions')
    .innerJoin('configs', 'configs.id', 'config_versions.config_id')
    .where('config_versions.config_id', '=', id)
    .where('configs.workspace_id', 'in', inList(scope))
    .orderBy('config_versions.version', 'desc')
    .execute();
  return rows.map((r) => ({ version: r.version, config: JSON.parse(r.config), created_at: Number(r.created_at) }));
}

/** Active configs (paged) of the scope with the total. */
export async function listConfigs(
  db: Kysely<Database>,
  scope: TenantScope,
  page: { limit: number; offset: number },
): Promise<{ rows: StoredConfig[]; total: number }> {
  const base = db.selectFrom('configs').where('configs.status', '=', 'active').where('configs.workspace_id', 'in', inList(scope));
  const [rows, count] = await Promise.all([
    base
      .innerJoin('config_versions', (j) =>
        j.onRef('config_versions.config_id', '=', 'configs.id').onRef('config_versions.version', '=', 'configs.version'),
      )
      .selectAll('configs')
      .select('config_versions.config as body')
      .orderBy('configs.created_at', 'desc')
      .orderBy('configs.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

/** Every active config with its current body (the runtime snapshot's source). */
export async function listActiveConfigs(store: Store): Promise<StoredConfig[]> {
  const rows = await store.db
    .selectFrom('configs')
    .innerJoin('config_versions', (j) =>
      j.onRef('config_versions.config_id', '=', 'configs.id').onRef('config_versions.version', '=', 'configs.version'),
    )
    .selectAll('configs')
    .select('config_versions.config as body')
    .where('configs.status', '=', 'active')
    .execute();
  return rows.map(fromRow);
}

/** A page of active configs with their current body, by id (the runtime snapshot loads configs in pages). */
export async function listActiveConfigsPage(store: Store, p: RuntimePage): Promise<StoredConfig[]> {
  let q = store.db
    .selectFrom('configs')
    .innerJoin('config_versions', (j) =>
      j.onRef('config_versions.config_id', '=', 'configs.id').onRef('config_versions.version', '=', 'configs.version'),
    )
    .selectAll('configs')
    .select('config_versions.config as body')
    .where('configs.status', '=', 'active');
  if (p.afterId !== undefined) q = q.where('configs.id', '>', p.afterId);
  if (p.workspaceIds) q = q.where('configs.workspace_id', 'in', [...p.workspaceIds]);
  const rows = await q.orderBy('configs.id').limit(p.limit).execute();
  return rows.map(fromRow);
}

function fromRow(r: ConfigsTable & { body: string }): StoredConfig {
  const { body, ...rest } = r;
  return {
    ...rest,
    status: rest.status as StoredConfig['status'],
    config: JSON.parse(body),
    created_at: Number(rest.created_at),
    updated_at: Number(rest.updated_at),
  };
}
