/**
 * Writes the gateway's OpenAPI document to `console/openapi.json` without listening on a port: builds a
 * gateway on a throw-away SQLite folder (quiet logs), asks the app for its document (what
 * `GET /openapi.json` answers) and closes it. `openapi-typescript` then turns it into `src/api/schema.d.ts`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSettings } from '../../src/data-plane/pipeline/settings.js';
import { createGateway } from '../../src/server/create-gateway.js';
import { createLogger } from '../../src/infra/observability/logger.js';

const out = fileURLToPath(new URL('../openapi.json', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'gw-openapi-'));
try {
  // A throw-away admin key, so the bootstrap prints none.
  const settings = readSettings({
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: randomBytes(24).toString('base64url'),
    LOG_LEVEL: 'silent',
    PORT: '0',
  });
  const gateway = await createGateway(settings, { logger: createLogger('silent') });
  try {
    await gateway.app.ready();
    writeFileSync(out, JSON.stringify(gateway.app.swagger(), null, 1) + '\n');
  } finally {
    await gateway.close();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(`wrote ${out}`);
