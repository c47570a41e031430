import { join } from 'node:path';
import type { Capability } from '../../pipeline/capability.js';
import type { Settings } from '../../pipeline/settings.js';
import type { Store } from '../../../infra/store/store.js';
import type { Clock } from '../../../foundation/lib/clock.js';
import { LocalFileStorage } from './local-file-storage.js';
import { DatabaseFileStorage } from './database-file-storage.js';
import type { FileStorage } from './file-storage.js';
import { GatewayFiles } from './gateway-files.js';
import { ResourceForwarder } from './provider-resource.js';
import { registerFilesRoutes } from './files-routes.js';

/** Largest upload (`GATEWAY_MAX_FILE_BYTES`, default 512 MiB, OpenAI's own limit). */
export function maxFileBytes(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.GATEWAY_MAX_FILE_BYTES);
  return Number.isInteger(n) && n > 0 ? n : 512 * 1024 * 1024;
}

/** Where gateway file content goes: `disk` ($GATEWAY_DATA_DIR/files) or `database` (table file_chunks). */
export type FileStorageKind = 'disk' | 'database';

/**
 * `GATEWAY_FILE_STORAGE` when set (`disk` or `database`; anything else is a startup error), otherwise
 * `database` on PostgreSQL (replicas share it, so they all serve every file) and `disk` on the embedded
 * SQLite default (one process; file content would only bloat the database file).
 */
export function fileStorageKind(dialect: Store['dialect'], env: NodeJS.ProcessEnv = process.env): FileStorageKind {
  const v = env.GATEWAY_FILE_STORAGE;
  if (v === undefined || v === '') return dialect === 'postgres' ? 'database' : 'disk';
  if (v === 'disk' || v === 'database') return v;
  throw new Error(`GATEWAY_FILE_STORAGE must be 'disk' or 'database', got '${v}'`);
}

/** The file storage of {@link fileStorageKind}. */
export function fileStorageOf(settings: Settings, store: Store, env: NodeJS.ProcessEnv = process.env): FileStorage {
  return fileStorageKind(store.dialect, env) === 'database'
    ? new DatabaseFileStorage(store)
    : new LocalFileStorage(join(settings.dataDir, 'files'));
}

/** The gateway's file store over the storage chosen by {@link fileStorageKind}. */
export function gatewayFilesOf(settings: Settings, store: Store, clock: Clock): GatewayFiles {
  return new GatewayFiles(store, fileStorageOf(settings, store), clock);
}

/**
 * Files (issue 10): `/v1/files` forwarded to providers with a Files API, otherwise stored by the gateway.
 * @see https://platform.openai.com/docs/api-reference/files
 */
export function filesCapability(opts: { maxFileBytes?: number } = {}): Capability {
  return {
    name: 'files',
    create(core) {
      const files = gatewayFilesOf(core.settings, core.store, core.clock);
      return {
        routes(app, deps) {
          registerFilesRoutes(app, deps, {
            files,
            forwarder: new ResourceForwarder(deps),
            maxFileBytes: opts.maxFileBytes ?? maxFileBytes(),
          });
        },
      };
    },
  };
}
