import type { RuntimePage, Store } from '../store.js';
import type { Kysely } from 'kysely';
import type { Database, OrganisationsTable, WorkspacesTable } from '../schema.js';
import { uuid } from '../../../foundation/lib/ids.js';

/** An organisation: the tenant every workspace, key and resource belongs to. */
export interface Organisation {
  id: string;
  name: string;
  slug: string;
  settings: Record<string, unknown>;
  created_at: number;
  /** The workspace its organisation keys act in when they name none. */
  default_workspace_id: string | null;
}

export interface Workspace {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  status: 'active' | 'archived';
  /** Overrides of the organisation's settings (only the keys a workspace may override). */
  settings: Record<string, unknown>;
  description: string | null;
  metadata: Record<string, unknown>;
  /** Request defaults for the workspace's keys (the key's own win), or null. */
  defaults: WorkspaceDefaults | null;
  created_at: number;
  updated_at: number;
}

/** A workspace's request defaults: the same shape as a key's `defaults`. */
export interface WorkspaceDefaults {
  config_id?: string;
  metadata?: Record<string, string>;
  allow_config_override?: boolean;
}

/** A new organisation's `default` workspace row. */
function defaultWorkspaceRow(organisationId: string, now: number): WorkspacesTable {
  return {
    id: uuid(),
    organisation_id: organisationId,
    name: 'Default workspace',
    slug: 'default',
    status: 'active',
    settings: '{}',
    description: null,
    metadata: '{}',
    defaults: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Inserts an organisation with its `default` workspace, made the organisation's default (in the
 * caller's transaction): what the bootstrap makes on first start and `POST /v1/organisations` makes
 * for each further organisation. A slug already taken is the store's unique violation.
 */
export async function insertTenant(
  db: Kysely<Database>,
  o: { name: string; slug: string },
  now: number,
): Promise<{ organisation: Organisation; workspace: Workspace }> {
  const org: OrganisationsTable = { id: uuid(), name: o.name, slug: o.slug, settings: '{}', created_at: now, default_workspace_id: null };
  await db.insertInto('organisations').values(org).execute();
  const ws = defaultWorkspaceRow(org.id, now);
  await db.insertInto('workspaces').values(ws).execute();
  await db.updateTable('organisations').set({ default_workspace_id: ws.id }).where('id', '=', org.id).execute();
  return { organisation: toOrganisation({ ...org, default_workspace_id: ws.id }), workspace: toWorkspace(ws) };
}

/**
 * Creates the `default` organisation and workspace when the store has none, and makes that workspace the
 * organisation's default when it has none yet; returns them.
 */
export async function ensureDefaultTenant(
  store: Store,
  now: number,
): Promise<{ organisation: Organisation; workspace: Workspace; created: boolean }> {
  return store.db.transaction().execute(async (trx) => {
    let org = await trx.selectFrom('organisations').selectAll().where('slug', '=', 'default').executeTakeFirst();
    if (!org) return { ...(await insertTenant(trx, { name: 'Default organisation', slug: 'default' }, now)), created: true };
    let created = false;
    let ws: WorkspacesTable | undefined = await trx
      .selectFrom('workspaces')
      .selectAll()
      .where('organisation_id', '=', org.id)
      .where('slug', '=', 'default')
      .executeTakeFirst();
    if (!ws) {
      ws = defaultWorkspaceRow(org.id, now);
      await trx.insertInto('workspaces').values(ws).execute();
      created = true;
    }
    if (!org.default_workspace_id) {
      await trx.updateTable('organisations').set({ default_workspace_id: ws.id }).where('id', '=', org.id).execute();
      org = { ...org, default_workspace_id: ws.id };
    }
    return { organisation: toOrganisation(org), workspace: toWorkspace(ws), created };
  });
}

/** Every workspace (the runtime snapshot resolves ids and slugs from this). */
export async function listWorkspaces(store: Store): Promise<Workspace[]> {
  const rows = await store.db.selectFrom('workspaces').selectAll().orderBy('created_at').execute();
  return rows.map(toWorkspace);
}

/** A page of workspaces by id, optionally only those with the given ids (the runtime snapshot loads them in pages). */
export async function listWorkspacesPage(store: Store, p: RuntimePage): Promise<Workspace[]> {
  let q = store.db.selectFrom('workspaces').selectAll();
  if (p.afterId !== undefined) q = q.where('id', '>', p.afterId);
  if (p.workspaceIds) q = q.where('id', 'in', [...p.workspaceIds]);
  const rows = await q.orderBy('id').limit(p.limit).execute();
  return rows.map(toWorkspace);
}

/** Every organisation (the runtime snapshot maps each to its default workspace). */
export async function listOrganisations(store: Store): Promise<Organisation[]> {
  const rows = await store.db.selectFrom('organisations').selectAll().orderBy('created_at').execute();
  return rows.map(toOrganisation);
}

/** An organisation row as read. */
export function toOrganisation(r: OrganisationsTable): Organisation {
  return { ...r, created_at: Number(r.created_at), settings: JSON.parse(r.settings) };
}

/** A workspace row as read. */
export function toWorkspace(r: WorkspacesTable): Workspace {
  return {
    id: r.id,
    organisation_id: r.organisation_id,
    name: r.name,
    slug: r.slug,
    status: r.status as Workspace['status'],
    settings: JSON.parse(r.settings),
    description: r.description ?? null,
    metadata: r.metadata ? JSON.parse(r.metadata) : {},
    defaults: r.defaults ? (JSON.parse(r.defaults) as WorkspaceDefaults) : null,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

/** One organisation by id, or undefined. */
export async function getOrganisation(db: Kysely<Database>, id: string): Promise<Organisation | undefined> {
  const row = await db.selectFrom('organisations').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toOrganisation(row);
}

/** Replaces an organisation's stored settings. */
export async function saveOrganisationSettings(db: Kysely<Database>, id: string, settings: Record<string, unknown>): Promise<void> {
  await db
    .updateTable('organisations')
    .set({ settings: JSON.stringify(settings) })
    .where('id', '=', id)
    .execute();
}
