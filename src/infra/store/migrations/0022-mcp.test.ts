import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import { deleteIdleMcpSessions, getMcpSession, insertMcpSession, listMcpServersWithIntegrations } from '../repos/mcp.js';
import { down, up } from './0022-mcp.js';
import * as m0028 from './0028-mcp-oauth.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0022-mcp ($name)', (kind) => {
  it('goes down and up again; slugs are unique per organisation (integrations) and per workspace (servers); idle sessions are swept', async () => {
    handle = await kind.open();
    const store = handle.store;
    const db = store.db;
    const t = await ensureDefaultTenant(store, 1);
    // 0028 builds on these tables: it goes down first and up again after.
    await m0028.down(db as unknown as Kysely<unknown>);
    await down(db as unknown as Kysely<unknown>);
    await up(db as unknown as Kysely<unknown>);
    await m0028.up(db as unknown as Kysely<unknown>);
    const integration = (id: string) => ({
      id,
      organisation_id: t.organisation.id,
      workspace_id: null,
      name: id,
      slug: 'same',
      url: 'http://127.0.0.1/mcp',
      transport: 'http',
      auth_type: 'none',
      headers_ciphertext: '',
      header_hints: '{}',
      oauth: '{}',
      oauth_secret_ciphertext: '',
      created_at: 1,
      updated_at: 1,
    });
    await db.insertInto('mcp_integrations').values(integration('i-1')).execute();
    await expect(db.insertInto('mcp_integrations').values(integration('i-2')).execute()).rejects.toThrow();
    const server = (id: string) => ({
      id,
      organisation_id: t.organisation.id,
      workspace_id: t.workspace.id,
      name: id,
      slug: 'srv',
      mcp_integration_id: 'i-1',
      tools: '{"deny":["x"]}',
      default_user_access: 'allow',
      created_at: 1,
      updated_at: 1,
    });
    await db.insertInto('mcp_servers').values(server('s-1')).execute();
    await expect(db.insertInto('mcp_servers').values(server('s-2')).execute()).rejects.toThrow();
    const [loaded] = await listMcpServersWithIntegrations(store);
    expect(loaded).toMatchObject({ server: { id: 's-1', tools: { deny: ['x'] } }, integration: { id: 'i-1', header_hints: {} } });
    const session = {
      id: 'sess-1',
      server_id: 's-1',
      workspace_id: t.workspace.id,
      key_id: 'k',
      user_id: null,
      upstream_session_id: 'up-1',
      protocol_version: '2025-11-25',
      initialize_params: '{}',
      created_at: 1,
      last_used_at: 1000,
    };
    await insertMcpSession(store, session);
    await insertMcpSession(store, { ...session, id: 'sess-2', last_used_at: 5000 });
    await deleteIdleMcpSessions(store, 2000);
    expect(await getMcpSession(store, 's-1', 'sess-1')).toBeUndefined();
    expect(await getMcpSession(store, 's-1', 'sess-2')).toMatchObject({ upstream_session_id: 'up-1', last_used_at: 5000 });
  });
});
