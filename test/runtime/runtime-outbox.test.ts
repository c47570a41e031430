import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../helpers/stores.js';
import {
  EVERY_SECTION,
  readRuntimeChanges,
  readRuntimeVersion,
  recordRuntimeChange,
  RUNTIME_CHANGES_KEEP,
} from '../../src/infra/store/store.js';

describe.each(STORE_KINDS)('runtime change outbox on $name', (kind) => {
  let h: StoreHandle;
  beforeEach(async () => {
    h = await kind.open();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it("records one version per write with its distinct changes, in the write's transaction", async () => {
    const v = await readRuntimeVersion(h.store);
    await recordRuntimeChange(h.store.db, [
      { section: 'configs', workspaceId: 'w1' },
      { section: 'configs', workspaceId: 'w1' },
      { section: 'guardrails' },
    ]);
    await recordRuntimeChange(h.store.db, []);
    expect(await readRuntimeVersion(h.store)).toBe(v + 2);
    expect(await readRuntimeChanges(h.store, v, v + 2)).toEqual([
      { version: v + 1, section: 'configs', workspaceId: 'w1' },
      { version: v + 1, section: 'guardrails', workspaceId: null },
      { version: v + 2, section: EVERY_SECTION, workspaceId: null },
    ]);
    // A rolled-back write leaves neither a version nor rows.
    await expect(
      h.store.db.transaction().execute(async (trx) => {
        await recordRuntimeChange(trx, [{ section: 'configs', workspaceId: 'w2' }]);
        throw new Error('write failed');
      }),
    ).rejects.toThrow('write failed');
    expect(await readRuntimeVersion(h.store)).toBe(v + 2);
    expect(await readRuntimeChanges(h.store, v + 2, v + 10)).toEqual([]);
  });

  it('prunes rows older than the retention, a bounded batch of versions per write', async () => {
    const old = Array.from({ length: 300 }, (_, i) => ({ version: i + 1, seq: 0, section: 'configs', workspace_id: null, created_at: 1 }));
    for (let i = 0; i < old.length; i += 100)
      await h.store.db
        .insertInto('runtime_changes')
        .values(old.slice(i, i + 100))
        .execute();
    // Recent rows far behind in versions stay (a replica may still need them).
    await h.store.db
      .insertInto('runtime_changes')
      .values({ version: 500, seq: 0, section: 'configs', workspace_id: null, created_at: Date.now() })
      .execute();
    await sql`update runtime_version set version = 2000 where id = 1`.execute(h.store.db);
    const remaining = async () => (await readRuntimeChanges(h.store, 0, 1000)).map((r) => r.version);
    await recordRuntimeChange(h.store.db, [{ section: 'configs' }]);
    expect((await remaining())[0]).toBe(102);
    await recordRuntimeChange(h.store.db, [{ section: 'configs' }]);
    expect((await remaining())[0]).toBe(203);
    await recordRuntimeChange(h.store.db, [{ section: 'configs' }]);
    expect(await remaining()).toEqual([500]);
    expect(RUNTIME_CHANGES_KEEP.versions).toBeLessThan(2000 - 500);
  });
});
