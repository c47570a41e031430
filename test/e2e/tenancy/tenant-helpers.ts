import type { TestGateway } from '../../helpers/gateway.js';
import { insertApiKey, type ApiKeyType } from '../../../src/infra/store/repos/api-keys.js';
import { sha256Hex } from '../../../src/foundation/lib/hash.js';
import { randomId, uuid } from '../../../src/foundation/lib/ids.js';

/** A JSON answer: status and parsed body. */
export interface JsonAnswer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Calls the gateway with `key` (JSON in and out). */
export async function callAs(
  gw: TestGateway,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonAnswer> {
  const res = await gw.fetch(path, {
    method,
    headers: { 'x-gateway-api-key': key, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Inserts a workspace into an organisation directly in the store. */
export async function insertWorkspace(gw: TestGateway, organisationId: string, slug: string): Promise<string> {
  const id = uuid();
  const now = Date.now();
  await gw.gateway.deps.store.db
    .insertInto('workspaces')
    .values({ id, organisation_id: organisationId, name: slug, slug, status: 'active', settings: '{}', created_at: now, updated_at: now })
    .execute();
  return id;
}

/** An organisation made by `POST /v1/organisations`: its id, its default workspace's id and its first admin key's value. */
export interface CreatedOrganisation {
  organisationId: string;
  workspaceId: string;
  adminKey: string;
}

/**
 * Creates an organisation through the API with the instance operator's key (the test gateway's admin
 * key): it comes with its `default` workspace and an organisation-service key holding `*`.
 */
export async function createOrganisation(gw: TestGateway, slug: string): Promise<CreatedOrganisation> {
  const created = await callAs(gw, gw.adminKey, 'POST', '/v1/organisations', { name: slug, slug });
  if (created.status !== 201) throw new Error(`POST /v1/organisations answered ${created.status}: ${JSON.stringify(created.body)}`);
  const ws = await callAs(gw, created.body.admin_key, 'GET', '/v1/workspaces/default');
  if (ws.status !== 200) throw new Error(`GET /v1/workspaces/default answered ${ws.status}: ${JSON.stringify(ws.body)}`);
  return { organisationId: created.body.id, workspaceId: ws.body.id, adminKey: created.body.admin_key };
}

/** Inserts a gateway key directly in the store (scopes default to `*`); returns its value. */
export async function insertKey(
  gw: TestGateway,
  k: { organisationId: string; workspaceId: string | null; type: ApiKeyType; scopes?: string[] },
): Promise<string> {
  const value = 'tenant-' + randomId(32);
  const now = Date.now();
  const scope = {
    organisationId: k.organisationId,
    workspaceIds: k.workspaceId ? [k.workspaceId] : [],
    organisationWide: k.workspaceId === null,
  };
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
