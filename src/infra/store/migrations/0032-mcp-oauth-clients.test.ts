import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import {
  deleteMcpConnectionsOfIntegration,
  deleteMcpIntegration,
  getMcpConnection,
  saveMcpConnection,
  type McpIntegration,
} from '../repos/mcp.js';
import {
  findMcpOAuthClient,
  getMcpOAuthClient,
  replaceMcpOAuthClient,
  saveMcpOAuthClient,
  type McpOAuthClient,
} from '../repos/mcp-oauth-clients.js';
import { down, up } from './0032-mcp-oauth-clients.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0032-mcp-oauth-clients ($name)', (kind) => {
  it('goes down and up again; one registration per integration, issuer and redirect URI (the first stored wins); dropped with the integration or its connections', async () => {
    handle = await kind.open();
    const store = handle.store;
    const db = store.db;
    const t = await ensureDefaultTenant(store, 1);
    await down(db as unknown as Kysely<unknown>);
    await up(db as unknown as Kysely<unknown>);
    await db
      .insertInto('mcp_integrations')
      .values({
        id: 'i-1',
        organisation_id: t.organisation.id,
        workspace_id: null,
        name: 'i',
        slug: 'i',
        url: 'http://127.0.0.1/mcp',
        transport: 'http',
        auth_type: 'oauth',
        headers_ciphertext: '',
        header_hints: '{}',
        oauth: '{}',
        oauth_secret_ciphertext: '',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    const client = (id: string, clientId: string, redirect = 'https://gw.example/v1/mcp/oauth/callback'): McpOAuthClient => ({
      id,
      organisation_id: t.organisation.id,
      mcp_integration_id: 'i-1',
      issuer: 'https://as.example',
      redirect_uri: redirect,
      client_id: clientId,
      client_secret_ciphertext: `sealed-${id}`,
      token_endpoint_auth_method: 'client_secret_basic',
      secret_expires_at: null,
      created_at: 1,
    });
    expect(await saveMcpOAuthClient(db, client('r-1', 'first'))).toMatchObject({ id: 'r-1', client_id: 'first' });
    // A second registration for the same redirect URI (another replica, at the same time) yields to the stored one.
    expect(await saveMcpOAuthClient(db, client('r-2', 'second'))).toMatchObject({ id: 'r-1', client_id: 'first' });
    expect(await saveMcpOAuthClient(db, client('r-3', 'other', 'https://other.example/v1/mcp/oauth/callback'))).toMatchObject({
      id: 'r-3',
    });
    expect((await findMcpOAuthClient(db, 'i-1', 'https://as.example', 'https://gw.example/v1/mcp/oauth/callback'))?.client_id).toBe(
      'first',
    );
    expect(await findMcpOAuthClient(db, 'i-1', 'https://elsewhere.example', 'https://gw.example/v1/mcp/oauth/callback')).toBeUndefined();
    expect((await getMcpOAuthClient(db, 'i-1', 'other'))?.id).toBe('r-3');
    expect(await replaceMcpOAuthClient(db, 'r-1', client('r-4', 'renewed'))).toMatchObject({ id: 'r-4', client_id: 'renewed' });
    expect(await getMcpOAuthClient(db, 'i-1', 'first')).toBeUndefined();

    await saveMcpConnection(db, {
      id: 'c-1',
      organisation_id: t.organisation.id,
      mcp_integration_id: 'i-1',
      user_id: 'u-1',
      access_token_ciphertext: 'a',
      refresh_token_ciphertext: 'r',
      expires_at: null,
      scopes: '',
      connected_at: 1,
      updated_at: 1,
      oauth_client_id: 'renewed',
    });
    expect((await getMcpConnection(db, 'i-1', 'u-1'))?.oauth_client_id).toBe('renewed');
    // What it removed comes back: the revocation of the grants upstream needs the connection and its client.
    const dropped = await deleteMcpConnectionsOfIntegration(db, 'i-1');
    expect(dropped.connections.map((c) => [c.id, c.oauth_client_id, c.connected_at])).toEqual([['c-1', 'renewed', 1]]);
    expect(dropped.clients.map((c) => [c.id, c.client_id, typeof c.created_at]).sort()).toEqual([
      ['r-3', 'other', 'number'],
      ['r-4', 'renewed', 'number'],
    ]);
    expect(await deleteMcpConnectionsOfIntegration(db, 'i-1')).toEqual({ connections: [], clients: [] });
    expect(await getMcpConnection(db, 'i-1', 'u-1')).toBeUndefined();
    expect(await db.selectFrom('mcp_oauth_clients').selectAll().execute()).toHaveLength(0);

    await saveMcpOAuthClient(db, client('r-5', 'again'));
    // Deleting the integration (it reads only its id and tenancy) drops its registrations too.
    const integration = { id: 'i-1', organisation_id: t.organisation.id, workspace_id: null } as McpIntegration;
    await deleteMcpIntegration(
      db,
      { organisationId: t.organisation.id, workspaceIds: [t.workspace.id], organisationWide: true },
      integration,
    );
    expect(await db.selectFrom('mcp_oauth_clients').selectAll().execute()).toHaveLength(0);
  });
});
