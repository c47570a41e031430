import type { Transaction } from 'kysely';
import type { Store } from './store.js';
import type { Database } from './schema.js';
import { isSealed, type SecretBox } from '../../foundation/lib/secret-box.js';
import { CREDENTIAL_NAME_PARTS, hasPlainCredentials, sealCredentialSettings } from '../../foundation/lib/credential-settings.js';
import { hasPlainConfigCredentials, sealConfigCredentials } from '../../foundation/lib/config-credentials.js';
import { hasPlainRouteHeaders, sealRouteHeaders } from '../../foundation/lib/route-headers.js';

/** A table column holding a credential sealed by the secret box with the row id as context. */
interface SealedColumn {
  table: 'virtual_keys' | 'integrations';
  column: 'secret' | 'key_ciphertext';
}

/** Every column of a stored credential. A table that stores one adds its row here. */
const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'virtual_keys', column: 'secret' },
  { table: 'integrations', column: 'key_ciphertext' },
];

/**
 * Seals credentials still stored in plaintext (rows written by a gateway older than encryption at
 * rest), with the row id as context. Runs on every start right after the migrations, because a
 * migration has no access to the encryption key. Idempotent (sealed and empty values are left alone)
 * and transactional: all rows or none. Each update is a compare-and-set on the plaintext, so two
 * replicas starting at once never seal a value twice. Returns how many values (or configs, config
 * versions, guardrails, batches) it sealed.
 */
export async function sealStoredSecrets(store: Store, box: SecretBox): Promise<number> {
  return store.db.transaction().execute(async (trx) => {
    let sealed = 0;
    for (const { table, column } of SEALED_COLUMNS) {
      const rows = (await trx
        .selectFrom(table)
        .select(['id', `${column} as value`] as never)
        .where(column as never, '!=', '' as never)
        .execute()) as unknown as Array<{ id: string; value: string | null }>;
      const candidates = rows.filter((r) => typeof r.value === 'string' && r.value !== '' && !isSealed(r.value));
      for (const r of candidates) {
        const result = await trx
          .updateTable(table)
          .set({ [column]: box.encrypt(r.value as string, r.id) } as never)
          .where('id', '=', r.id)
          .where(column as never, '=', r.value as never)
          .executeTakeFirst();
        sealed += Number(result.numUpdatedRows);
      }
    }
    // Credential-like values inside a virtual key's `config` (`aws_secret_access_key` …), sealed one by one.
    const configs = await trx.selectFrom('virtual_keys').select(['id', 'config']).execute();
    for (const r of configs) {
      const config = JSON.parse(r.config) as Record<string, unknown>;
      if (!hasPlainCredentials(config)) continue;
      const result = await trx
        .updateTable('virtual_keys')
        .set({ config: JSON.stringify(sealCredentialSettings(box, `${r.id}:config`, config)) })
        .where('id', '=', r.id)
        .where('config', '=', r.config)
        .executeTakeFirst();
      sealed += Number(result.numUpdatedRows);
    }
    sealed += await sealConfigVersions(trx, box);
    sealed += await sealGuardrailChecks(trx, box);
    sealed += await sealBatchRoutes(trx, box);
    return sealed;
  });
}

/**
 * Credential members of stored routing configs (`api_key`, cloud credentials, webhook headers …), in
 * every version. Only versions whose text names a credential (or `headers`) are read and parsed.
 */
async function sealConfigVersions(trx: Transaction<Database>, box: SecretBox): Promise<number> {
  let count = 0;
  const rows = await trx
    .selectFrom('config_versions')
    .select(['config_id', 'version', 'config'])
    .where((eb) => eb.or([...CREDENTIAL_NAME_PARTS, 'headers'].map((part) => eb(eb.fn('lower', ['config']), 'like', `%${part}%`))))
    .execute();
  for (const r of rows) {
    const config = JSON.parse(r.config) as Record<string, unknown>;
    if (!hasPlainConfigCredentials(config)) continue;
    const result = await trx
      .updateTable('config_versions')
      .set({ config: JSON.stringify(sealConfigCredentials(box, r.config_id, config)) })
      .where('config_id', '=', r.config_id)
      .where('version', '=', r.version)
      .where('config', '=', r.config)
      .executeTakeFirst();
    count += Number(result.numUpdatedRows);
  }
  return count;
}

/**
 * Credential members of stored guardrails' checks (a webhook's `headers` …). Only rows whose text
 * names a credential (or `headers`) are read and parsed.
 */
async function sealGuardrailChecks(trx: Transaction<Database>, box: SecretBox): Promise<number> {
  let count = 0;
  const rows = await trx
    .selectFrom('guardrails')
    .select(['id', 'checks'])
    .where((eb) => eb.or([...CREDENTIAL_NAME_PARTS, 'headers'].map((part) => eb(eb.fn('lower', ['checks']), 'like', `%${part}%`))))
    .execute();
  for (const r of rows) {
    const doc = { checks: JSON.parse(r.checks) as unknown };
    if (!hasPlainConfigCredentials(doc, 'guardrail')) continue;
    const result = await trx
      .updateTable('guardrails')
      .set({ checks: JSON.stringify(sealConfigCredentials(box, r.id, doc, 'guardrail').checks) })
      .where('id', '=', r.id)
      .where('checks', '=', r.checks)
      .executeTakeFirst();
    count += Number(result.numUpdatedRows);
  }
  return count;
}

/**
 * The routing headers batches captured at creation (`Authorization`, an inline `x-gateway-config` …).
 * Rows with no header, or whose headers are already sealed, are not parsed.
 */
async function sealBatchRoutes(trx: Transaction<Database>, box: SecretBox): Promise<number> {
  let count = 0;
  const rows = await trx
    .selectFrom('batches')
    .select(['id', 'route'])
    .where('route', 'not like', '%"headers":{}%')
    .where('route', 'not like', '%{"sealed":"%')
    .execute();
  for (const r of rows) {
    const route = JSON.parse(r.route) as { headers?: unknown };
    if (typeof route.headers !== 'object' || route.headers === null || !hasPlainRouteHeaders(route.headers as Record<string, unknown>))
      continue;
    const result = await trx
      .updateTable('batches')
      .set({ route: JSON.stringify({ ...route, headers: sealRouteHeaders(box, r.id, route.headers as Record<string, unknown>) }) })
      .where('id', '=', r.id)
      .where('route', '=', r.route)
      .executeTakeFirst();
    count += Number(result.numUpdatedRows);
  }
  return count;
}
