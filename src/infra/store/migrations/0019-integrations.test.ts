import { afterEach, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import { down, up } from './0019-integrations.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0019-integrations ($name)', (kind) => {
  it('keeps existing virtual keys (integration_id null) and adds integrations with a per-organisation slug', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const t = await ensureDefaultTenant(handle.store, 1);
    await down(db as unknown as Kysely<unknown>);
    await sql`insert into virtual_keys (id, workspace_id, name, slug, provider, secret, config, status, created_at, updated_at) values ('vk-old', ${t.workspace.id}, 'old', 'old', 'openai', 'sk-old-plaintext', '{}', 'active', 1, 1)`.execute(
      db,
    );
    await up(db as unknown as Kysely<unknown>);
    const vk = await db.selectFrom('virtual_keys').select(['id', 'integration_id', 'secret']).executeTakeFirstOrThrow();
    expect(vk).toEqual({ id: 'vk-old', integration_id: null, secret: 'sk-old-plaintext' });
    const row = (id: string) => ({
      id,
      organisation_id: t.organisation.id,
      workspace_id: null,
      name: id,
      slug: 'same',
      ai_provider_id: 'openai',
      key_ciphertext: '',
      key_hint: null,
      configurations: '{}',
      secret_configurations: '',
      secret_mappings: '[]',
      pricing_adjustments: null,
      allow_all_models: 1,
      models: null,
      workspaces: '[]',
      status: 'active',
      created_at: 1,
      updated_at: 1,
    });
    await db.insertInto('integrations').values(row('i-1')).execute();
    await expect(db.insertInto('integrations').values(row('i-2')).execute()).rejects.toThrow();
  });
});
