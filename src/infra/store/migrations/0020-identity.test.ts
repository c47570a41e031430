import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import { isUniqueViolation } from '../store.js';
import { down, up } from './0020-identity.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0020-identity ($name)', (kind) => {
  it('down drops the identity tables, up makes them again: userName and group names unique per organisation case-insensitively, SCIM rows go with their user', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const tenant = await ensureDefaultTenant(handle.store, 1);
    const org = tenant.organisation.id;
    await down(db as unknown as Kysely<unknown>);
    expect(
      await db
        .selectFrom('scim_users')
        .selectAll()
        .execute()
        .catch(() => 'missing'),
    ).toBe('missing');
    await up(db as unknown as Kysely<unknown>);
    await db
      .insertInto('users')
      .values({
        id: 'u1',
        organisation_id: org,
        email: 'a@example.com',
        name: null,
        role: 'member',
        status: 'active',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    await db
      .insertInto('users')
      .values({
        id: 'u2',
        organisation_id: org,
        email: 'b@example.com',
        name: null,
        role: 'member',
        status: 'active',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    await db
      .insertInto('scim_users')
      .values({ user_id: 'u1', organisation_id: org, user_name: 'Alice@Example.com', external_id: 'x1', attributes: '{}' })
      .execute();
    expect(
      isUniqueViolation(
        await db
          .insertInto('scim_users')
          .values({ user_id: 'u2', organisation_id: org, user_name: 'alice@example.com', external_id: null, attributes: '{}' })
          .execute()
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
    await db
      .insertInto('scim_groups')
      .values({ id: 'g1', organisation_id: org, display_name: 'Engineers', external_id: null, created_at: 1, updated_at: 1 })
      .execute();
    expect(
      isUniqueViolation(
        await db
          .insertInto('scim_groups')
          .values({ id: 'g2', organisation_id: org, display_name: 'ENGINEERS', external_id: null, created_at: 1, updated_at: 1 })
          .execute()
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
    await db.insertInto('scim_group_members').values({ group_id: 'g1', user_id: 'u1' }).execute();
    await db.deleteFrom('users').where('id', '=', 'u1').execute();
    expect(await db.selectFrom('scim_users').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('scim_group_members').selectAll().execute()).toEqual([]);
  });
});
