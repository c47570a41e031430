import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { MAX_PENDING_PER_USER_AND_SERVER, insertMcpOAuthState, takeMcpOAuthState, type McpOAuthState } from '../repos/mcp-oauth-states.js';
import { down, up } from './0029-mcp-oauth-states.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0029-mcp-oauth-states ($name)', (kind) => {
  it('goes down and up again; a state is taken once, not after it expired, and expired ones are swept', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    await down(db as unknown as Kysely<unknown>);
    await up(db as unknown as Kysely<unknown>);
    const state = (hash: string, expiresAt: number): McpOAuthState => ({
      state_hash: hash,
      organisation_id: 'o',
      workspace_id: 'w',
      server_id: 's',
      mcp_integration_id: 'i',
      user_id: 'u',
      code_verifier_ciphertext: 'sealed',
      redirect_uri: 'http://127.0.0.1/v1/mcp/oauth/callback',
      resource: 'http://127.0.0.1/mcp',
      created_at: 1,
      expires_at: expiresAt,
    });
    await insertMcpOAuthState(db, state('a', 1000), 10);
    await insertMcpOAuthState(db, state('b', 20), 10);
    expect(await takeMcpOAuthState(db, 'a', 100)).toMatchObject({
      user_id: 'u',
      server_id: 's',
      expires_at: 1000,
      resource: 'http://127.0.0.1/mcp',
    });
    expect(await takeMcpOAuthState(db, 'a', 100)).toBeUndefined();
    // Expired: refused, and gone.
    expect(await takeMcpOAuthState(db, 'b', 30)).toBeUndefined();
    await insertMcpOAuthState(db, state('c', 50), 10);
    await insertMcpOAuthState(db, state('d', 5000), 60);
    expect((await db.selectFrom('mcp_oauth_states').select('state_hash').execute()).map((r) => r.state_hash)).toEqual(['d']);
    await expect(insertMcpOAuthState(db, state('d', 5000), 60)).rejects.toThrow();
  });

  it('keeps only the newest pending authorizations of a user for a server', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const state = (hash: string, user: string, server: string, at: number): McpOAuthState => ({
      state_hash: hash,
      organisation_id: 'o',
      workspace_id: 'w',
      server_id: server,
      mcp_integration_id: 'i',
      user_id: user,
      code_verifier_ciphertext: 'sealed',
      redirect_uri: 'http://127.0.0.1/v1/mcp/oauth/callback',
      resource: '',
      created_at: at,
      expires_at: at + 600_000,
    });
    await insertMcpOAuthState(db, state('other-user', 'v', 's', 1), 1);
    await insertMcpOAuthState(db, state('other-server', 'u', 't', 1), 1);
    for (let i = 0; i < MAX_PENDING_PER_USER_AND_SERVER + 3; i++)
      await insertMcpOAuthState(db, state(`u-s-${i}`, 'u', 's', 10 + i), 10 + i);
    const left = (await db.selectFrom('mcp_oauth_states').select('state_hash').execute()).map((r) => r.state_hash).sort();
    const newest = Array.from({ length: MAX_PENDING_PER_USER_AND_SERVER }, (_, i) => `u-s-${i + 3}`);
    expect(left).toEqual(['other-server', 'other-user', ...newest].sort());
    expect(await takeMcpOAuthState(db, 'u-s-0', 20)).toBeUndefined();
    expect(await takeMcpOAuthState(db, 'u-s-3', 20)).toMatchObject({ user_id: 'u', server_id: 's' });
  });
});
