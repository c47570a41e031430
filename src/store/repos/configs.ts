import type { RuntimePage, Store } from '../store.js';
import type { ConfigsTable } from '../schema.js';

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

/** Creates a config at version 1. */
export async function insertConfig(store: Store, c: StoredConfig): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    const { config, ...row } = c;
    await trx.insertInto('configs').values(row).execute();
    await trx.insertInto('config_versions').values({ config_id: c.id, version: c.version, config: JSON.stringify(config), created_at: c.created_at }).execute();
  });
}

/** Writes a new version (and optionally renames); returns the new version number. */
export async function updateConfig(store: Store, id: string, patch: { name?: string; config?: Record<string, unknown> }, now: number): Promise<number> {
  return store.db.transaction().execute(async (trx) => {
    const cur = await trx.selectFrom('configs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    let version = cur.version;
    if (patch.config) {
      version = cur.version + 1;
      await trx.insertInto('config_versions').values({ config_id: id, version, config: JSON.stringify(patch.config), created_at: now }).execute();
    }
    const set: Partial<ConfigsTable> = { version, updated_at: now };
    if (patch.name !== undefined) set.name = patch.name;
    await trx.updateTable('configs').set(set).where('id', '=', id).execute();
    return version;
  });
}

export async function archiveConfig(store: Store, id: string, now: number): Promise<void> {
  await store.db.updateTable('configs').set({ status: 'archived', updated_at: now }).where('id', '=', id).execute();
}

/** One config by id or slug within a workspace set, current version, active or not. */
export async function getConfig(store: Store, idOrSlug: string, workspaceIds?: string[]): Promise<StoredConfig | undefined> {
  let q = store.db
    .selectFrom('configs')
    .innerJoin('config_versions', (j) => j.onRef('config_versions.config_id', '=', 'configs.id').onRef('config_versions.version', '=', 'configs.version'))
    .selectAll('configs')
    .select('config_versions.config as body')
    .where((eb) => eb.or([eb('configs.id', '=', idOrSlug), eb('configs.slug', '=', idOrSlug)]));
  if (workspaceIds) q = q.where('configs.workspace_id', 'in', workspaceIds);
  const row = await q.executeTakeFirst();
  return row && fromRow(row);
}

export async function listConfigVersions(store: Store, id: string): Promise<Array<{ version: number; config: Record<string, unknown>; created_at: number }>> {
  const rows = await store.db.selectFrom('config_versions').selectAll().where('config_id', '=', id).orderBy('version', 'desc').execute();
  return rows.map((r) => ({ version: r.version, config: JSON.parse(r.config), created_at: Number(r.created_at) }));
}

/** Active configs (paged) of the given workspaces with the total. */
export async function listConfigs(store: Store, f: { workspaceIds: string[]; limit: number; offset: number }): Promise<{ rows: StoredConfig[]; total: number }> {
  const base = store.db.selectFrom('configs').where('configs.status', '=', 'active').where('configs.workspace_id', 'in', f.workspaceIds);
  const [rows, count] = await Promise.all([
    base
      .innerJoin('config_versions', (j) => j.onRef('config_versions.config_id', '=', 'configs.id').onRef('config_versions.version', '=', 'configs.version'))
      .selectAll('configs')
      .select('config_versions.config as body')
      .orderBy('configs.created_at', 'desc')
      .orderBy('configs.id')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

/** Every active config with its current body (the runtime snapshot's source). */
export async function listActiveConfigs(store: Store): Promise<StoredConfig[]> {
  const rows = await store.db
    .selectFrom('configs')
    .innerJoin('config_versions', (j) => j.onRef('config_versions.config_id', '=', 'configs.id').onRef('config_versions.version', '=', 'configs.version'))
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
    .innerJoin('config_versions', (j) => j.onRef('config_versions.config_id', '=', 'configs.id').onRef('config_versions.version', '=', 'configs.version'))
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
  return { ...rest, status: rest.status as StoredConfig['status'], config: JSON.parse(body), created_at: Number(rest.created_at), updated_at: Number(rest.updated_at) };
}
