import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../test/helpers/stores.js';
import { ensureDefaultTenant } from './repos/organisations.js';
import { insertVirtualKey } from './repos/virtual-keys.js';
import { sealStoredSecrets } from './seal-stored-secrets.js';
import { SecretBox, isSealed } from '../../foundation/lib/secret-box.js';
import { Runtime } from '../../runtime/runtime.js';
import { MemoryPubSub } from '../state/pubsub.js';
import { createLogger } from '../observability/logger.js';

const box = new SecretBox(Buffer.alloc(32, 3));
const logger = createLogger('silent');
let handle: StoreHandle | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  runtime?.stop();
  runtime = undefined;
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('sealing stored credentials ($name)', (kind) => {
  it('seals plaintext virtual-key secrets written by the old code path, once, and the runtime opens them', async () => {
    handle = await kind.open();
    const { store } = handle;
    const t = await ensureDefaultTenant(store, 1);
    const scope = { organisationId: t.organisation.id, workspaceIds: [t.workspace.id], organisationWide: true };
    const row = (id: string, secret: string) => ({
      id,
      workspace_id: t.workspace.id,
      name: id,
      slug: id,
      provider: 'openai',
      secret,
      config: {},
      status: 'active' as const,
      created_at: 1,
      updated_at: 1,
    });
    // The old resource stored the key as given.
    await insertVirtualKey(store.db, scope, row('vk-plain', 'sk-plaintext-credential-1'));
    await insertVirtualKey(store.db, scope, row('vk-empty', ''));
    const already = box.encrypt('sk-sealed-credential-2', 'vk-sealed');
    await insertVirtualKey(store.db, scope, row('vk-sealed', already));

    expect(await sealStoredSecrets(store, box)).toBe(1);
    const rows = Object.fromEntries(
      (await store.db.selectFrom('virtual_keys').select(['id', 'secret']).execute()).map((r) => [r.id, r.secret]),
    );
    expect(isSealed(rows['vk-plain']!)).toBe(true);
    expect(rows['vk-plain']).not.toContain('plaintext');
    expect(box.decrypt(rows['vk-plain']!, 'vk-plain')).toBe('sk-plaintext-credential-1');
    expect(rows['vk-empty']).toBe('');
    expect(rows['vk-sealed']).toBe(already);
    // Idempotent: a second start changes nothing.
    expect(await sealStoredSecrets(store, box)).toBe(0);
    expect((await store.db.selectFrom('virtual_keys').select('secret').where('id', '=', 'vk-plain').executeTakeFirstOrThrow()).secret).toBe(
      rows['vk-plain'],
    );

    runtime = new Runtime(
      store,
      new MemoryPubSub(),
      logger,
      { organisationId: t.organisation.id, workspaceId: t.workspace.id },
      60_000,
      box,
    );
    await runtime.start();
    expect(runtime.current.virtualKeys.get(`${t.workspace.id}:vk-plain`)?.secret).toBe('sk-plaintext-credential-1');
    expect(runtime.current.virtualKeys.get(`${t.workspace.id}:vk-sealed`)?.secret).toBe('sk-sealed-credential-2');
  });

  it('leaves out of the snapshot a key sealed under another encryption key, and seals integration keys too', async () => {
    handle = await kind.open();
    const { store } = handle;
    const t = await ensureDefaultTenant(store, 1);
    const scope = { organisationId: t.organisation.id, workspaceIds: [t.workspace.id], organisationWide: true };
    const other = new SecretBox(Buffer.alloc(32, 9));
    await insertVirtualKey(store.db, scope, {
      id: 'vk-other',
      workspace_id: t.workspace.id,
      name: 'o',
      slug: 'o',
      provider: 'openai',
      secret: other.encrypt('sk-x', 'vk-other'),
      config: {},
      status: 'active',
      created_at: 1,
      updated_at: 1,
    });
    await store.db
      .insertInto('integrations')
      .values({
        id: 'int-1',
        organisation_id: t.organisation.id,
        workspace_id: null,
        name: 'i',
        slug: 'i',
        ai_provider_id: 'openai',
        key_ciphertext: 'sk-integration-plain',
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
      })
      .execute();
    expect(await sealStoredSecrets(store, box)).toBe(1);
    const stored = await store.db.selectFrom('integrations').select('key_ciphertext').executeTakeFirstOrThrow();
    expect(box.decrypt(stored.key_ciphertext, 'int-1')).toBe('sk-integration-plain');
    runtime = new Runtime(
      store,
      new MemoryPubSub(),
      logger,
      { organisationId: t.organisation.id, workspaceId: t.workspace.id },
      60_000,
      box,
    );
    await runtime.start();
    expect(runtime.current.virtualKeys.get(`${t.workspace.id}:vk-other`)).toBeUndefined();
  });
});
