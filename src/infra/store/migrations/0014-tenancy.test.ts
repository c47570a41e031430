import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { down, up } from './0014-tenancy.js';
import { down as downIdentity } from './0020-identity.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0014-tenancy ($name)', (kind) => {
  it('upgrades existing workspaces and keys: no description, empty metadata, no defaults, no user', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const raw = db as unknown as Kysely<unknown>;
    // Later tables that reference `users` (SCIM, 0020) go first, as a real roll-back would take them.
    await downIdentity(raw);
    await down(raw);
    await db
      .insertInto('organisations')
      .values({ id: 'o1', name: 'o', slug: 'o1', settings: '{}', created_at: 0, default_workspace_id: null })
      .execute();
    await db
      .insertInto('workspaces')
      .values({
        id: 'w1',
        organisation_id: 'o1',
        name: 'w',
        slug: 'w',
        status: 'active',
        settings: '{}',
        created_at: 1,
        updated_at: 1,
      } as never)
      .execute();
    await db
      .insertInto('api_keys')
      .values({
        id: 'k1',
        organisation_id: 'o1',
        workspace_id: 'w1',
        name: 'k',
        type: 'workspace-user',
        key_hash: 'h',
        key_hint: 'h',
        scopes: '[]',
        status: 'active',
        expires_at: null,
        rotation_policy: null,
        metadata: '{}',
        created_at: 1,
        updated_at: 1,
      } as never)
      .execute();
    await up(raw);
    expect(
      await db.selectFrom('workspaces').select(['description', 'metadata', 'defaults']).where('id', '=', 'w1').executeTakeFirst(),
    ).toEqual({ description: null, metadata: '{}', defaults: null });
    expect(await db.selectFrom('api_keys').select('user_id').where('id', '=', 'k1').executeTakeFirst()).toEqual({ user_id: null });
    expect(await db.selectFrom('users').selectAll().execute()).toEqual([]);
  });
});
