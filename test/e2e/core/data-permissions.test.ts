import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TEST_STORE, type TestGateway } from '../../helpers/gateway.js';

/** Every directory and file under `dir`, with its permission bits. */
function modes(dir: string): Array<{ path: string; dir: boolean; mode: number }> {
  const out = [{ path: dir, dir: true, mode: statSync(dir).mode & 0o777 }];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...modes(p));
    else out.push({ path: p, dir: false, mode: statSync(p).mode & 0o777 });
  }
  return out;
}

/** The data directory holds the admin key, the SQLite database and uploaded files: owner only. */
describe('data directory permissions', () => {
  const parent = mkdtempSync(join(tmpdir(), 'gw-perm-'));
  const dataDir = join(parent, 'nested', 'data');
  let gw: TestGateway;

  beforeAll(async () => {
    // No admin key given: the gateway generates one and writes it to the data directory.
    gw = await startGateway({ env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_KEY: '' } });
  });
  afterAll(async () => {
    await gw?.close();
    rmSync(parent, { recursive: true, force: true });
  });

  it('creates the data directory 0700 and every file in it 0600', async () => {
    const adminKey = readFileSync(join(dataDir, 'admin-key'), 'utf8').trim();
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob(['{"a":1}\n']), 'a.jsonl');
    const up = await fetch(gw.url + '/v1/files', { method: 'POST', body: form, headers: { 'x-gateway-api-key': adminKey } });
    expect(up.status, await up.clone().text()).toBe(200);
    // A write, so SQLite has its -wal and -shm files.
    expect(
      (
        await fetch(gw.url + '/v1/configs', {
          method: 'POST',
          headers: { 'x-gateway-api-key': adminKey, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'c', config: { provider: 'openai', api_key: 'sk' } }),
        })
      ).status,
    ).toBe(201);

    const found = modes(dataDir);
    const names = found.map((f) => f.path.slice(dataDir.length + 1));
    expect(names).toContain('admin-key');
    if (TEST_STORE === 'sqlite') {
      expect(names).toEqual(expect.arrayContaining(['gateway.db', 'gateway.db-wal', 'gateway.db-shm', 'files']));
      expect(found.filter((f) => !f.dir && f.path.startsWith(join(dataDir, 'files')))).toHaveLength(1);
    }
    for (const f of found) expect({ path: f.path, mode: f.mode.toString(8) }).toEqual({ path: f.path, mode: f.dir ? '700' : '600' });
    expect(statSync(join(parent, 'nested')).mode & 0o777).toBe(0o700);
  });
});
