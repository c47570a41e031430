import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { toFile } from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

/** Gateways of the current test; closed newest first (the first one owns the PostgreSQL schema). */
const started: TestGateway[] = [];
afterEach(async () => {
  while (started.length) await started.pop()!.close();
  delete process.env.GATEWAY_FILE_STORAGE;
});

/** Two replicas on one PostgreSQL schema; b is driven with a's admin key (the one the shared store knows). */
async function replicas(): Promise<[TestGateway, TestGateway]> {
  const a = await startGateway({ store: 'postgres' });
  started.push(a);
  const b = await startGateway({ store: 'postgres', pgSchema: a.pgSchema });
  started.push(b);
  const key = { 'x-gateway-api-key': a.adminKey };
  const viaB: TestGateway = {
    ...b,
    openai: (headers = {}, o) => b.openai({ ...key, ...headers }, o),
    fetch: (path, init = {}) => b.fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), ...key } }),
  };
  return [a, viaB];
}

describe('gateway files across replicas sharing PostgreSQL', () => {
  it('serves a file uploaded through one replica from the other, and a delete through either is seen by both', async () => {
    const [a, b] = await replicas();
    const data = randomBytes(2.5 * 1024 * 1024);
    const up = await a.openai().files.create({ file: await toFile(data, 'big.bin'), purpose: 'vision' });
    expect(up).toMatchObject({ bytes: data.length, filename: 'big.bin', status: 'processed' });
    expect(await b.openai().files.retrieve(up.id)).toEqual(up);
    expect((await b.openai().files.list()).data.map((f) => f.id)).toEqual([up.id]);
    const res = await b.fetch(`/v1/files/${up.id}/content`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(data.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);
    expect(await b.openai().files.delete(up.id)).toEqual({ id: up.id, object: 'file', deleted: true });
    const gone = await a.fetch(`/v1/files/${up.id}/content`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({
      error: { message: expect.stringContaining(up.id), type: 'not_found_error', param: 'file_id', code: 'not_found' },
    });
    const rows = await a.gateway.deps.store.db.selectFrom('file_chunks').select('file_id').execute();
    expect(rows).toEqual([]);
  });

  it('keeps content on each replica\u2019s disk with GATEWAY_FILE_STORAGE=disk (not shared)', async () => {
    process.env.GATEWAY_FILE_STORAGE = 'disk';
    const [a, b] = await replicas();
    const up = await a.openai().files.create({ file: await toFile(Buffer.from('local only'), 'x.txt'), purpose: 'vision' });
    expect(await (await a.openai().files.content(up.id)).text()).toBe('local only');
    const other = await b.fetch(`/v1/files/${up.id}/content`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { message: string } }).error.message).toContain('is gone');
  });
});

describe('GATEWAY_FILE_STORAGE on the embedded SQLite default', () => {
  it('keeps file content in the database when set to database', async () => {
    process.env.GATEWAY_FILE_STORAGE = 'database';
    const gw = await startGateway({ store: 'sqlite' });
    started.push(gw);
    const up = await gw.openai().files.create({ file: await toFile(Buffer.from('in the db'), 'y.txt'), purpose: 'vision' });
    expect(await (await gw.openai().files.content(up.id)).text()).toBe('in the db');
    const rows = await gw.gateway.deps.store.db.selectFrom('file_chunks').select(['file_id', 'seq']).execute();
    expect(rows.map((r) => [r.file_id, Number(r.seq)])).toEqual([[up.id, 0]]);
    expect(existsSync(join(gw.gateway.deps.settings.dataDir, 'files', up.id))).toBe(false);
  });

  it('refuses to start with an unknown value', async () => {
    process.env.GATEWAY_FILE_STORAGE = 's3';
    await expect(startGateway({ store: 'sqlite' })).rejects.toThrow(/GATEWAY_FILE_STORAGE must be 'disk' or 'database'/);
  });
});
