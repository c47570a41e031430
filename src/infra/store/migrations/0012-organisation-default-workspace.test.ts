import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { down, up } from './0012-organisation-default-workspace.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0012-organisation-default-workspace ($name)', (kind) => {
  it("fills each organisation's default workspace: its `default` workspace, else its oldest", async () => {
    handle = await kind.open();
    const db = handle.store.db;
    await down(db as unknown as Kysely<unknown>);
    const ws = (id: string, org: string, slug: string, at: number) => ({
      id,
      organisation_id: org,
      name: slug,
      slug,
      status: 'active',
      settings: '{}',
      created_at: at,
      updated_at: at,
    });
    for (const id of ['o1', 'o2', 'o3'])
      await db
        .insertInto('organisations')
        .values({ id, name: id, slug: id, settings: '{}', created_at: 0 } as never)
        .execute();
    await db
      .insertInto('workspaces')
      .values([ws('w1-old', 'o1', 'team', 1), ws('w1-default', 'o1', 'default', 5), ws('w2-new', 'o2', 'b', 9), ws('w2-old', 'o2', 'a', 3)])
      .execute();
    await up(db as unknown as Kysely<unknown>);
    const rows = await db.selectFrom('organisations').select(['id', 'default_workspace_id']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'o1', default_workspace_id: 'w1-default' },
      { id: 'o2', default_workspace_id: 'w2-old' },
      { id: 'o3', default_workspace_id: null },
    ]);
  });
});
