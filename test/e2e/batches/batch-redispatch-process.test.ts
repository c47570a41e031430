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
import { chatLines, jsonl, uploadInput, waitFor } from './batch-helpers.js';

/**
 * `kill -9` of the gateway while lines of a gateway-managed batch wait on a slow provider, twice: a line
 * in flight at the first crash is sent once more (with the same Idempotency-Key), a line in flight at
 * both crashes is not sent a third time but fails in the error file, and finished lines never run again.
 */
let fake: FakeOpenAI;
const procs: GatewayProcess[] = [];
const ADMIN = 'proc-admin-' + randomId(16);
const TOTAL = 48;
const CONCURRENCY = 8;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
});
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await fake?.close();
});

function client(p: GatewayProcess, routed = true): OpenAI {
  const headers: Record<string, string> = { 'x-gateway-api-key': ADMIN };
  if (routed) headers['x-gateway-config'] = JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url });
  return new OpenAI({ baseURL: `${p.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: headers });
}

interface Send {
  customId: string;
  key: string | undefined;
}

/** Chat requests the fake received: the line they came from ("line-i" → req-i) and their Idempotency-Key. */
function sends(): Send[] {
  return fake.requests
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => {
      const text = String(r.body?.messages?.at(-1)?.content ?? '');
      const key = r.headers['idempotency-key'];
      return { customId: text.replace(/^line-/, 'req-'), key: typeof key === 'string' ? key : undefined };
    });
}

function sendsOf(id: string): Send[] {
  return sends().filter((s) => s.customId === id);
}

async function until(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function kill(p: GatewayProcess): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exited;
}

interface LineState {
  custom_id: string;
  state: string;
  dispatches: number;
}

/** Where the gateway keeps its data, and a reader of a batch's line rows there. */
interface Backend {
  env: Record<string, string>;
  dataDir: string;
  lines(batchId: string): Promise<LineState[]>;
  dispose(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-batch-redispatch-'));
  return {
    env: {},
    dataDir,
    async lines(batchId) {
      const db = new Database(join(dataDir, 'gateway.db'), { readonly: true });
      try {
        return db
          .prepare('select custom_id, state, dispatches from batch_lines where batch_id = ? order by line_no')
          .all(batchId) as LineState[];
      } finally {
        db.close();
      }
    },
    async dispose() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function postgresBackend(): Backend {
  const schema = `t_${randomId(12).toLowerCase()}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-batch-redispatch-'));
  const pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${schema}` });
  return {
    env: { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, GATEWAY_BATCH_LEASE_MS: '1500' },
    dataDir,
    async lines(batchId) {
      const r = await pool.query('select custom_id, state, dispatches from batch_lines where batch_id = $1 order by line_no', [batchId]);
      return r.rows as LineState[];
    },
    async dispose() {
      await pool.end();
      await dropPostgresSchema(PG_URL, schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe.each([
  { name: 'SQLite', backend: sqliteBackend },
  { name: 'PostgreSQL', backend: postgresBackend },
])('a gateway killed twice mid-batch on $name', ({ backend }) => {
  it('re-sends an interrupted line at most once with the same Idempotency-Key and never reruns a finished one', async () => {
    fake.reset();
    const b = backend();
    const env = { ...b.env, GATEWAY_ADMIN_KEY: ADMIN, GATEWAY_BATCH_CONCURRENCY: String(CONCURRENCY), GATEWAY_BATCH_POLL_MS: '20' };
    try {
      const p1 = await spawnGateway(env, { dataDir: b.dataDir });
      procs.push(p1);
      const input = await uploadInput(client(p1, false), chatLines(TOTAL));
      for (let i = 0; i < TOTAL * 3; i++) fake.fail({ delayMs: 400 });
      const batch = await client(p1).batches.create({
        input_file_id: input,
        endpoint: '/v1/chat/completions',
        completion_window: 'immediate' as '24h',
      });

      // First crash: two rounds answered, the third in flight.
      await until('the third round', () => sends().length >= 2 * CONCURRENCY + 2);
      await kill(p1);
      const afterFirst = await b.lines(batch.id);
      const doneFirst = afterFirst.filter((l) => l.state === 'done').map((l) => l.custom_id);
      const inFlightFirst = afterFirst.filter((l) => l.state === 'running').map((l) => l.custom_id);
      expect(doneFirst.length).toBeGreaterThan(0);
      expect(inFlightFirst.length).toBeGreaterThan(0);
      // Recorded as dispatched before it left (a line killed between the record and the send never arrived).
      const running = afterFirst.filter((x) => x.state === 'running');
      for (const l of running) expect(Number(l.dispatches), l.custom_id).toBeLessThanOrEqual(1);
      for (const l of running) if (sendsOf(l.custom_id).length > 0) expect(Number(l.dispatches), l.custom_id).toBe(1);
      const sentFirst = new Map(inFlightFirst.map((id) => [id, sendsOf(id).length]));
      for (const [id, n] of sentFirst) expect(n, id).toBeLessThanOrEqual(1);
      expect([...sentFirst.values()].some((n) => n === 1)).toBe(true);

      // Second crash: once every line interrupted by the first one was sent again, and before it answered.
      const p2 = await spawnGateway(env, { dataDir: b.dataDir });
      procs.push(p2);
      await until('the re-sends', () => inFlightFirst.every((id) => sendsOf(id).length === sentFirst.get(id)! + 1));
      await kill(p2);
      // (On PostgreSQL the dead worker's claims wait out their lease, so some re-sends may have answered already.)
      const twiceInterrupted = (await b.lines(batch.id))
        .filter((l) => l.state === 'running' && Number(l.dispatches) === 2)
        .map((l) => l.custom_id);
      expect(twiceInterrupted.length).toBeGreaterThan(0);
      for (const id of twiceInterrupted) expect(inFlightFirst).toContain(id);

      const p3 = await spawnGateway(env, { dataDir: b.dataDir });
      procs.push(p3);
      const finished = await waitFor(client(p3), batch.id, ['completed', 'failed', 'expired'], 60_000);
      expect(finished.status).toBe('completed');
      expect(finished.request_counts).toEqual({
        total: TOTAL,
        completed: TOTAL - twiceInterrupted.length,
        failed: twiceInterrupted.length,
      });

      // Upstream view: at most two sends per line, one for a line finished before a crash, every send
      // carrying the line's key (so a re-send carries the same key as its first send).
      const all = sends();
      for (let i = 0; i < TOTAL; i++) {
        const mine = sendsOf(`req-${i}`);
        expect(mine.length, `req-${i}`).toBeGreaterThanOrEqual(1);
        expect(mine.length, `req-${i}`).toBeLessThanOrEqual(2);
        for (const s of mine) expect(s.key, `req-${i}`).toBe(`${batch.id}:${i + 1}`);
      }
      expect(new Set(all.map((s) => s.key)).size).toBe(TOTAL);
      for (const id of doneFirst) expect(sendsOf(id), id).toHaveLength(1);
      for (const id of twiceInterrupted) expect(sendsOf(id).length, id).toBeGreaterThanOrEqual(1);

      // Output and error files together hold every line once; the twice-interrupted lines fail with a clear error.
      const c = client(p3);
      const out = finished.output_file_id ? jsonl(await (await c.files.content(finished.output_file_id)).text()) : [];
      const errs = finished.error_file_id ? jsonl(await (await c.files.content(finished.error_file_id)).text()) : [];
      const ids = [...out, ...errs].map((l) => l.custom_id);
      expect(ids).toHaveLength(TOTAL);
      expect(new Set(ids).size).toBe(TOTAL);
      expect(errs.map((l) => l.custom_id).sort()).toEqual([...twiceInterrupted].sort());
      for (const e of errs) {
        expect(e.response).toBeNull();
        expect(e.error.code).toBe('batch_line_interrupted');
        expect(e.error.message).toContain('not sent again');
      }
      for (const o of out) expect(o.response.body.choices[0].message.content).toBe(`echo: ${o.custom_id.replace('req-', 'line-')}`);
      await p3.stop();
    } finally {
      await b.dispose();
    }
  }, 120_000);
});
