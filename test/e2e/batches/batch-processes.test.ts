import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Database from 'better-sqlite3';
import pg from 'pg';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { PG_URL } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { dropPostgresSchema } from '../../../src/infra/store/store.js';
import { chatLines, jsonl, requestsPerLine, uploadInput, waitFor } from './batch-helpers.js';

let fake: FakeOpenAI;
const procs: GatewayProcess[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
});
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) await p.stop();
  await fake?.close();
});

const ADMIN = 'proc-admin-' + randomId(16);

function client(p: GatewayProcess, routed = true): OpenAI {
  const headers: Record<string, string> = { 'x-gateway-api-key': ADMIN };
  if (routed) headers['x-gateway-config'] = JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url });
  return new OpenAI({ baseURL: `${p.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: headers });
}

async function waitForRequests(n: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (fake.requests.filter((r) => r.path === '/v1/chat/completions').length < n) {
    if (Date.now() > deadline) throw new Error('the batch did not start');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every custom id appears once in the output and error files together; lines done before the kill reached the fake once. */
async function checkNoDuplicates(
  c: OpenAI,
  batch: OpenAI.Batches.Batch,
  total: number,
  doneBeforeKill: string[],
  concurrency: number,
): Promise<void> {
  const out = batch.output_file_id ? jsonl(await (await c.files.content(batch.output_file_id)).text()) : [];
  const errs = batch.error_file_id ? jsonl(await (await c.files.content(batch.error_file_id)).text()) : [];
  const ids = [...out, ...errs].map((l) => l.custom_id);
  expect(ids).toHaveLength(total);
  expect(new Set(ids).size).toBe(total);
  const counts = requestsPerLine(fake);
  expect(doneBeforeKill.length).toBeGreaterThan(0);
  for (const id of doneBeforeKill) expect(counts.get(id), id).toBe(1);
  // Only lines in flight when the process died can have reached the fake twice.
  const twice = [...counts.entries()].filter(([, n]) => n > 1);
  expect(twice.length).toBeLessThanOrEqual(concurrency);
  expect(counts.size).toBe(total);
}

describe('a gateway killed mid-batch', () => {
  it('resumes on restart (same data dir, SQLite) without running a completed line twice', async () => {
    fake.reset();
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-batch-restart-'));
    const env = { GATEWAY_ADMIN_KEY: ADMIN, GATEWAY_BATCH_CONCURRENCY: '4', GATEWAY_BATCH_POLL_MS: '20' };
    try {
      const p1 = await spawnGateway(env, { dataDir });
      procs.push(p1);
      const total = 300;
      const input = await uploadInput(client(p1, false), chatLines(total));
      for (let i = 0; i < total; i++) fake.fail({ delayMs: 15 });
      const batch = await client(p1).batches.create({
        input_file_id: input,
        endpoint: '/v1/chat/completions',
        completion_window: 'immediate' as '24h',
      });
      await waitForRequests(80);
      p1.child.kill('SIGKILL');
      await p1.exited;
      const db = new Database(join(dataDir, 'gateway.db'), { readonly: true });
      const done = db.prepare("select custom_id from batch_lines where batch_id = ? and state = 'done'").all(batch.id) as Array<{
        custom_id: string;
      }>;
      const status = (db.prepare('select status from batches where id = ?').get(batch.id) as { status: string }).status;
      db.close();
      expect(status).toBe('in_progress');
      expect(done.length).toBeLessThan(total);
      const p2 = await spawnGateway(env, { dataDir });
      procs.push(p2);
      const finished = await waitFor(client(p2), batch.id, ['completed', 'failed'], 60_000);
      expect(finished.status).toBe('completed');
      expect(finished.request_counts).toEqual({ total, completed: total, failed: 0 });
      await checkNoDuplicates(
        client(p2),
        finished,
        total,
        done.map((d) => d.custom_id),
        4,
      );
      await p2.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('two replicas on PostgreSQL', () => {
  it('share one batch (each line claimed once), its files, and finish it when one of them is killed', async () => {
    fake.reset();
    const schema = `t_${randomId(12).toLowerCase()}`;
    const env = {
      GATEWAY_ADMIN_KEY: ADMIN,
      DATABASE_URL: PG_URL,
      DATABASE_SCHEMA: schema,
      GATEWAY_BATCH_CONCURRENCY: '4',
      GATEWAY_BATCH_POLL_MS: '20',
      GATEWAY_BATCH_LEASE_MS: '1500',
    };
    const pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${schema}` });
    try {
      const a = await spawnGateway(env);
      procs.push(a);
      const b = await spawnGateway(env);
      procs.push(b);
      const total = 400;
      // Uploaded through b, read and used through a: the content is in the shared database, not on b's disk.
      const text = chatLines(total);
      const input = await uploadInput(client(b, false), text);
      expect(await (await client(a, false).files.content(input)).text()).toBe(text);
      expect((await client(a, false).files.retrieve(input)).bytes).toBe(Buffer.byteLength(text));
      const chunks = await pool.query('select count(*)::int as n from file_chunks where file_id = $1', [input]);
      expect(chunks.rows[0].n).toBe(1);
      for (let i = 0; i < total; i++) fake.fail({ delayMs: 10 });
      const batch = await client(a).batches.create({
        input_file_id: input,
        endpoint: '/v1/chat/completions',
        completion_window: 'immediate' as '24h',
      });
      expect((await client(b).batches.retrieve(batch.id)).id).toBe(batch.id);
      await waitForRequests(150);
      const owners = await pool.query(
        "select owner, count(*)::int as n from batch_lines where batch_id = $1 and state = 'done' group by owner",
        [batch.id],
      );
      expect(owners.rows.length).toBe(2);
      a.child.kill('SIGKILL');
      await a.exited;
      const done = await pool.query("select custom_id from batch_lines where batch_id = $1 and state = 'done'", [batch.id]);
      const finished = await waitFor(client(b), batch.id, ['completed', 'failed'], 60_000);
      expect(finished.status).toBe('completed');
      expect(finished.request_counts).toEqual({ total, completed: total, failed: 0 });
      await checkNoDuplicates(
        client(b),
        finished,
        total,
        done.rows.map((r) => r.custom_id),
        4,
      );
      // The output file written by b is served by a replica that started afterwards.
      const c = await spawnGateway(env);
      procs.push(c);
      const out = jsonl(await (await client(c, false).files.content(finished.output_file_id!)).text());
      expect(out).toHaveLength(total);
      expect(out.map((l) => l.custom_id).sort()).toEqual(
        jsonl(text)
          .map((l) => l.custom_id)
          .sort(),
      );
      await b.stop();
      await c.stop();
    } finally {
      await pool.end();
      await dropPostgresSchema(PG_URL, schema);
    }
  }, 120_000);
});
