import type { Kysely } from 'kysely';
import type { Store } from '../store.js';
import type { AgentServersTable, Database } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { assertInScope, inList } from './tenant.js';
import type { HeaderSecretMapping } from './secret-references.js';

/** A stored agent server (control-plane.md §10). Its upstream headers stay sealed here. */
export interface AgentServer {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  url: string;
  /** The headers as sealed JSON (secret box, context `<id>:headers`); '' when none. */
  headers_sealed: string;
  /** Header name → masked hint of its value. */
  header_hints: Record<string, string>;
  /** Allow-listed skill ids; null: every skill. */
  skills_allow: string[] | null;
  /** Headers filled from secret references at call time (they override `headers` of the same name). */
  secret_mappings: HeaderSecretMapping[];
  created_at: number;
  updated_at: number;
}

/** Inserts an agent server into a workspace of the scope. */
export async function insertAgentServer(db: Kysely<Database>, scope: TenantScope, a: AgentServer): Promise<void> {
  assertInScope(scope, a.organisation_id, a.workspace_id);
  await db.insertInto('agent_servers').values(toRow(a)).execute();
}

/** Replaces the changeable fields of an agent server of the scope. */
export async function updateAgentServer(db: Kysely<Database>, scope: TenantScope, a: AgentServer, now: number): Promise<void> {
  const { id: _id, organisation_id: _o, workspace_id: _w, created_at: _c, ...rest } = toRow(a);
  await db
    .updateTable('agent_servers')
    .set({ ...rest, updated_at: now })
    .where('id', '=', a.id)
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .execute();
}

/** Deletes an agent server of the scope. */
export async function deleteAgentServer(db: Kysely<Database>, scope: TenantScope, a: AgentServer): Promise<void> {
  await db
    .deleteFrom('agent_servers')
    .where('id', '=', a.id)
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .execute();
}

/** One agent server of the scope by id or slug. */
export async function getAgentServer(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<AgentServer | undefined> {
  const row = await db
    .selectFrom('agent_servers')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .orderBy('created_at')
    .executeTakeFirst();
  return row && fromRow(row);
}

/** A page of the scope's agent servers, newest first, with the total. */
export async function listAgentServers(
  db: Kysely<Database>,
  scope: TenantScope,
  page: { limit: number; offset: number },
): Promise<{ rows: AgentServer[]; total: number }> {
  if (scope.workspaceIds.length === 0) return { rows: [], total: 0 };
  const base = db
    .selectFrom('agent_servers')
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope));
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

/** Every agent server, or those of some workspaces (the runtime snapshot's source). */
export async function listAllAgentServers(store: Store, workspaceIds?: readonly string[]): Promise<AgentServer[]> {
  let q = store.db.selectFrom('agent_servers').selectAll();
  if (workspaceIds) q = q.where('workspace_id', 'in', workspaceIds.length ? [...workspaceIds] : ['']);
  return (await q.execute()).map(fromRow);
}

function toRow(a: AgentServer): AgentServersTable {
  return {
    ...a,
    header_hints: JSON.stringify(a.header_hints),
    skills_allow: a.skills_allow === null ? null : JSON.stringify(a.skills_allow),
    secret_mappings: JSON.stringify(a.secret_mappings),
  };
}

function fromRow(r: AgentServersTable): AgentServer {
  return {
    ...r,
    header_hints: JSON.parse(r.header_hints) as Record<string, string>,
    skills_allow: r.skills_allow === null ? null : (JSON.parse(r.skills_allow) as string[]),
    secret_mappings: JSON.parse(r.secret_mappings ?? '[]') as HeaderSecretMapping[],
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
