import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import { isUniqueViolation } from '../store.js';
import { down, up } from './0016-sessions.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0016-sessions ($name)', (kind) => {
  it('down drops the table, up makes it again: token hashes unique, revoked_at nullable, organisation referenced', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const tenant = await ensureDefaultTenant(handle.store, 1);
    await down(db as unknown as Kysely<unknown>);
    expect(
      await db
        .selectFrom('sessions')
        .selectAll()
        .execute()
        .catch(() => 'missing'),
    ).toBe('missing');
    await up(db as unknown as Kysely<unknown>);
    const row = {
      id: 's1',
      token_hash: 'h1',
      user_id: 'u1',
      organisation_id: tenant.organisation.id,
      created_at: 1,
      expires_at: 2,
      revoked_at: null,
    };
    await db.insertInto('sessions').values(row).execute();
    expect(
      isUniqueViolation(
        await db
          .insertInto('sessions')
          .values({ ...row, id: 's2' })
          .execute()
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
    const read = await db.selectFrom('sessions').selectAll().execute();
    expect(read.map((r) => ({ ...r, created_at: Number(r.created_at), expires_at: Number(r.expires_at) }))).toEqual([row]);
  });
});
