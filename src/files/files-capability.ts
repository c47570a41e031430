import { join } from 'node:path';
import type { Capability } from '../server/capability.js';
import type { Settings } from '../server/settings.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../lib/clock.js';
import { LocalFileStorage } from './local-file-storage.js';
import { GatewayFiles } from './gateway-files.js';
import { ResourceForwarder } from './provider-resource.js';
import { registerFilesRoutes } from './files-routes.js';

/** Largest upload (`GATEWAY_MAX_FILE_BYTES`, default 512 MiB, OpenAI's own limit). */
export function maxFileBytes(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.GATEWAY_MAX_FILE_BYTES);
  return Number.isInteger(n) && n > 0 ? n : 512 * 1024 * 1024;
}

/** The gateway's file store: local disk under `$GATEWAY_DATA_DIR/files` (the FileStorage seam takes an S3-compatible store). */
export function gatewayFilesOf(settings: Settings, store: Store, clock: Clock): GatewayFiles {
  return new GatewayFiles(store, new LocalFileStorage(join(settings.dataDir, 'files')), clock);
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
          registerFilesRoutes(app, deps, { files, forwarder: new ResourceForwarder(deps), maxFileBytes: opts.maxFileBytes ?? maxFileBytes() });
        },
      };
    },
  };
}
