import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import {
  deleteMcpConnection,
  deleteMcpIntegration,
  deleteUserMcpConnections,
  getMcpConnection,
  listMcpConnections,
  listMcpServersWithIntegrations,
  replaceMcpConnectionTokens,
  saveMcpConnection,
  type McpConnection,
} from '../repos/mcp.js';
import { down, up } from './0028-mcp-oauth.js';
import * as m0032 from './0032-mcp-oauth-clients.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0028-mcp-oauth ($name)', (kind) => {
  it('goes down and up again; one connection per integration and user; a refresh replaces tokens only over the token it read; revocations', async () => {
    handle = await kind.open();
    const store = handle.store;
    const db = store.db;
    const t = await ensureDefaultTenant(store, 1);
    // 0032 changes 0028's connections table: down in reverse order, then up again.
    await m0032.down(db as unknown as Kysely<unknown>);
    await down(db as unknown as Kysely<unknown>);
    await up(db as unknown as Kysely<unknown>);
    await m0032.up(db as unknown as Kysely<unknown>);
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
        oauth: '{"client_id":"c","scopes":["a","b"]}',
        oauth_secret_ciphertext: 'sealed',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    await db
      .insertInto('mcp_servers')
      .values({
        id: 's-1',
        organisation_id: t.organisation.id,
        workspace_id: t.workspace.id,
        name: 's',
        slug: 's',
        mcp_integration_id: 'i-1',
        tools: '{}',
        default_user_access: 'allow',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    const [loaded] = await listMcpServersWithIntegrations(store);
    expect(loaded?.integration).toMatchObject({
      auth_type: 'oauth',
      oauth: { client_id: 'c', scopes: ['a', 'b'] },
      oauth_secret_ciphertext: 'sealed',
    });

    const conn = (id: string, userId: string, connectedAt: number): McpConnection => ({
      id,
      organisation_id: t.organisation.id,
      mcp_integration_id: 'i-1',
      user_id: userId,
      access_token_ciphertext: `a-${id}`,
      refresh_token_ciphertext: `r-${id}`,
      expires_at: 10_000_000_000_000,
      scopes: 'a b',
      connected_at: connectedAt,
      updated_at: connectedAt,
      oauth_client_id: null,
    });
    await saveMcpConnection(db, conn('c-1', 'u-1', 1));
    await saveMcpConnection(db, conn('c-2', 'u-2', 2));
    // A second connect of the same user replaces the first.
    await saveMcpConnection(db, conn('c-3', 'u-1', 3));
    await expect(
      db
        .insertInto('mcp_connections')
        .values(conn('c-4', 'u-1', 4))
        .execute(),
    ).rejects.toThrow();
    expect(await getMcpConnection(db, 'i-1', 'u-1')).toMatchObject({ id: 'c-3', expires_at: 10_000_000_000_000, connected_at: 3 });
    const page = await listMcpConnections(db, 'i-1', { limit: 1, offset: 0 });
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => r.user_id)).toEqual(['u-2']);

    const next = { access_token_ciphertext: 'a-new', refresh_token_ciphertext: 'r-new', expires_at: 5, scopes: 'a', updated_at: 9 };
    expect(await replaceMcpConnectionTokens(db, 'c-3', 'a-c-3', next)).toBe(true);
    // A second refresher that read the old token loses.
    expect(await replaceMcpConnectionTokens(db, 'c-3', 'a-c-3', { ...next, access_token_ciphertext: 'a-other' })).toBe(false);
    expect(await getMcpConnection(db, 'i-1', 'u-1')).toMatchObject({
      access_token_ciphertext: 'a-new',
      refresh_token_ciphertext: 'r-new',
      expires_at: 5,
    });

    expect(await deleteMcpConnection(db, 'i-1', 'u-2')).toMatchObject({
      user_id: 'u-2',
      mcp_integration_id: 'i-1',
      connected_at: expect.any(Number),
    });
    expect(await deleteMcpConnection(db, 'i-1', 'u-2')).toBeUndefined();
    await deleteUserMcpConnections(db, 'another-organisation', 'u-1');
    expect(await getMcpConnection(db, 'i-1', 'u-1')).toBeDefined();
    await deleteUserMcpConnections(db, t.organisation.id, 'u-1');
    expect(await getMcpConnection(db, 'i-1', 'u-1')).toBeUndefined();

    await saveMcpConnection(db, conn('c-5', 'u-5', 5));
    await db.deleteFrom('mcp_servers').execute();
    await deleteMcpIntegration(
      db,
      { organisationId: t.organisation.id, workspaceIds: [t.workspace.id], organisationWide: true },
      loaded!.integration,
    );
    expect((await listMcpConnections(db, 'i-1', { limit: 10, offset: 0 })).total).toBe(0);
  });
});
