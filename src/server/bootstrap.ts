import { writeFile, mkdir } from 'node:fs/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../foundation/lib/private-files.js';
import { join } from 'node:path';
import type { Store } from '../infra/store/store.js';
import { ensureDefaultTenant } from '../infra/store/repos/organisations.js';
import { newKeyValue } from '../control-plane/resources/api-keys/key-value.js';
import { insertAdminKey } from '../control-plane/resources/api-keys/admin-key.js';
import type { Settings } from '../data-plane/pipeline/settings.js';
import type { Logger } from '../infra/observability/logger.js';

/**
 * First start on an empty store (decisions.md, "Running"): organisation `default`, workspace
 * `default`, and one organisation-service admin key whose value is GATEWAY_ADMIN_KEY when set,
 * otherwise generated, printed once and written to `$GATEWAY_DATA_DIR/admin-key` (mode 0600). It holds
 * `*` explicitly (keys created without scopes get only their type's data-plane and read defaults) and
 * is the instance operator's key: the only one that may create further organisations
 * (`POST /v1/organisations`, which makes each one's tenant and first key with the same code).
 */
export async function bootstrap(store: Store, settings: Settings, logger: Logger, now: number): Promise<{ organisationId: string; workspaceId: string }> {
  const { organisation, workspace } = await ensureDefaultTenant(store, now);
  const anyKey = await store.db.selectFrom('api_keys').select('id').limit(1).executeTakeFirst();
  if (!anyKey) {
    const value = settings.adminKey ?? newKeyValue(settings.apiKeyPrefix);
    await insertAdminKey(store.db, { organisationId: organisation.id, workspaceId: workspace.id }, value, settings.apiKeyPrefix, now, true);
    if (!settings.adminKey) {
      await mkdir(settings.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const file = join(settings.dataDir, 'admin-key');
      await writeFile(file, value + '\n', { mode: PRIVATE_FILE_MODE });
      process.stdout.write(`\nGateway admin key (shown once, also written to ${file}):\n  ${value}\n\n`);
    }
    logger.info('created the default organisation, workspace and admin key');
  }
  return { organisationId: organisation.id, workspaceId: workspace.id };
}
