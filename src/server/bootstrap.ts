import { writeFile, mkdir } from 'node:fs/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../foundation/lib/private-files.js';
import { join } from 'node:path';
import type { Store } from '../infra/store/store.js';
import { ensureDefaultTenant } from '../infra/store/repos/organisations.js';
import { newKeyValue } from '../control-plane/resources/api-keys/key-value.js';
import { insertAdminKey } from '../control-plane/resources/api-keys/admin-key.js';
import { insertFirstOwner } from '../control-plane/resources/users/first-owner.js';
import type { Settings } from '../data-plane/pipeline/settings.js';
import type { Logger } from '../infra/observability/logger.js';

/** The owner's email when the first start generates the admin key and `GATEWAY_ADMIN_EMAIL` is unset. */
export const DEFAULT_OWNER_EMAIL = 'admin@localhost';

/** What the first start made and must show once (values in clear: print them, never log them). */
export interface FirstStart {
  /** The generated admin key and the file it was written to (absent when GATEWAY_ADMIN_KEY chose it). */
  adminKey?: { value: string; file: string };
  /** The owner user and the value of their console sign-in key, and the file it was written to. */
  owner?: { email: string; key: string; file: string };
}

async function writePrivate(dataDir: string, name: string, value: string): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = join(dataDir, name);
  await writeFile(file, value + '\n', { mode: PRIVATE_FILE_MODE });
  return file;
}

/**
 * First start on an empty store (decisions.md, "Running"): organisation `default`, workspace
 * `default`, and one organisation-service admin key whose value is GATEWAY_ADMIN_KEY when set,
 * otherwise generated and written to `$GATEWAY_DATA_DIR/admin-key` (mode 0600). It holds `*` explicitly
 * (keys created without scopes get only their type's data-plane and read defaults) and is the instance
 * operator's key: the only one that may create further organisations (`POST /v1/organisations`).
 * When the admin key is generated, or `GATEWAY_ADMIN_EMAIL` is set, it also makes the owner user (that
 * email, default `admin@localhost`) with a console sign-in key written to `$GATEWAY_DATA_DIR/console-key`,
 * so the console can be signed in to at once. Answers the default tenant and, on a first start, what
 * `main` prints once.
 */
export async function bootstrap(
  store: Store,
  settings: Settings,
  logger: Logger,
  now: number,
): Promise<{ organisationId: string; workspaceId: string; firstStart?: FirstStart }> {
  const { organisation, workspace } = await ensureDefaultTenant(store, now);
  const tenant = { organisationId: organisation.id, workspaceId: workspace.id };
  const anyKey = await store.db.selectFrom('api_keys').select('id').limit(1).executeTakeFirst();
  if (anyKey) return tenant;
  const value = settings.adminKey ?? newKeyValue(settings.apiKeyPrefix);
  const email = settings.adminEmail ?? (settings.adminKey ? undefined : DEFAULT_OWNER_EMAIL);
  const owner = await store.db.transaction().execute(async (trx) => {
    await insertAdminKey(trx, tenant, value, settings.apiKeyPrefix, now, true);
    return email === undefined ? undefined : insertFirstOwner(trx, tenant, email, settings.apiKeyPrefix, now);
  });
  const firstStart: FirstStart = {};
  if (!settings.adminKey) firstStart.adminKey = { value, file: await writePrivate(settings.dataDir, 'admin-key', value) };
  if (owner && email !== undefined)
    firstStart.owner = { email, key: owner.key, file: await writePrivate(settings.dataDir, 'console-key', owner.key) };
  logger.info(
    owner
      ? 'created the default organisation, workspace, admin key and owner user'
      : 'created the default organisation, workspace and admin key',
  );
  return { ...tenant, firstStart };
}
