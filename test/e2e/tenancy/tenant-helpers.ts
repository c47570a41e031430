import type { TestGateway } from '../../helpers/gateway.js';
import { insertApiKey, type ApiKeyType } from '../../../src/store/repos/api-keys.js';
import { sha256Hex } from '../../../src/lib/hash.js';
import { randomId, uuid } from '../../../src/lib/ids.js';

/** A JSON answer: status and parsed body. */
export interface JsonAnswer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Calls the gateway with `key` (JSON in and out). */
export async function callAs(gw: TestGateway, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const res = await gw.fetch(path, { method, headers: { 'x-gateway-api-key': key, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Inserts a workspace into an organisation directly in the store (there is no API for organisations). */
export async function insertWorkspace(gw: TestGateway, organisationId: string, slug: string): Promise<string> {
  const id = uuid();
  const now = Date.now();
  await gw.gateway.deps.store.db.insertInto('workspaces').values({ id, organisation_id: organisationId, name: slug, slug, status: 'active', settings: '{}', created_at: now, updated_at: now }).execute();
  return id;
}

/** Creates an organisation with one workspace (its default) directly in the store. */
export async function insertOrganisation(gw: TestGateway, slug: string): Promise<{ organisationId: string; workspaceId: string }> {
  const organisationId = uuid();
  const db = gw.gateway.deps.store.db;
  await db.insertInto('organisations').values({ id: organisationId, name: slug, slug, settings: '{}', created_at: Date.now(), default_workspace_id: null }).execute();
  const workspaceId = await insertWorkspace(gw, organisationId, 'default');
  await db.updateTable('organisations').set({ default_workspace_id: workspaceId }).where('id', '=', organisationId).execute();
  return { organisationId, workspaceId };
}

/** Inserts a gateway key directly in the store (scopes default to `*`); returns its value. */
export async function insertKey(gw: TestGateway, k: { organisationId: string; workspaceId: string | null; type: ApiKeyType; scopes?: string[] }): Promise<string> {
  const value = 'tenant-' + randomId(32);
  const now = Date.now();
  const scope = { organisationId: k.organisationId, workspaceIds: k.workspaceId ? [k.workspaceId] : [], organisationWide: k.workspaceId === null };
  await insertApiKey(gw.gateway.deps.store.db, scope, {
    id: uuid(),
    organisation_id: k.organisationId,
    workspace_id: k.workspaceId,
    name: 'tenant test',
    type: k.type,
    key_hash: sha256Hex(value),
    key_hint: value.slice(0, 4),
    scopes: k.scopes ?? ['*'],
    status: 'active',
    expires_at: null,
    rotation_policy: null,
    metadata: {},
    created_at: now,
    updated_at: now,
  });
  return value;
}
