import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import { down, up } from './0015-api-key-lifecycle.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0015-api-key-lifecycle ($name)', (kind) => {
  it('moves a rotation recorded in metadata into the columns; new columns default to creation_mode api', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const tenant = await ensureDefaultTenant(handle.store, 1);
    await down(db as unknown as Kysely<unknown>);
    const key = (id: string, metadata: Record<string, unknown>) => ({
      id,
      organisation_id: tenant.organisation.id,
      workspace_id: tenant.workspace.id,
      name: id,
      type: 'workspace-service',
      key_hash: `h-${id}`,
      key_hint: 'x',
      scopes: '[]',
      status: 'active',
      expires_at: null,
      rotation_policy: null,
      metadata: JSON.stringify(metadata),
      created_at: 1,
      updated_at: 1,
    });
    await db
      .insertInto('api_keys')
      .values([
        key('rotated', { team: 'a', previous_key_hash: 'old-hash', previous_key_valid_until: '5000000000000' }),
        key('plain', { team: 'b' }),
      ])
      .execute();
    await up(db as unknown as Kysely<unknown>);
    const rows = await db
      .selectFrom('api_keys')
      .select([
        'id',
        'metadata',
        'previous_key_hash',
        'key_transition_expires_at',
        'creation_mode',
        'last_used_at',
        'next_rotation_at',
        'pending_key_ciphertext',
      ])
      .orderBy('id')
      .execute();
    expect(
      rows.map((r) => ({
        ...r,
        key_transition_expires_at: r.key_transition_expires_at === null ? null : Number(r.key_transition_expires_at),
        metadata: JSON.parse(r.metadata),
      })),
    ).toEqual([
      {
        id: 'plain',
        metadata: { team: 'b' },
        previous_key_hash: null,
        key_transition_expires_at: null,
        creation_mode: 'api',
        last_used_at: null,
        next_rotation_at: null,
        pending_key_ciphertext: null,
      },
      {
        id: 'rotated',
        metadata: { team: 'a' },
        previous_key_hash: 'old-hash',
        key_transition_expires_at: 5_000_000_000_000,
        creation_mode: 'api',
        last_used_at: null,
        next_rotation_at: null,
        pending_key_ciphertext: null,
      },
    ]);
  });
});
