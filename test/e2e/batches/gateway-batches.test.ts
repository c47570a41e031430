import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { CAPABILITIES } from '../../../src/server/capabilities.js';
import { batchesCapability } from '../../../src/data-plane/endpoints/batches/batches-capability.js';
import { uuid } from '../../../src/foundation/lib/ids.js';
import { chatLines, jsonl, requestsPerLine, uploadInput, waitFor } from './batch-helpers.js';

let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  const capabilities = CAPABILITIES.map((c) => (c.name === 'batches' ? batchesCapability({ concurrency: 8, pollMs: 20 }) : c));
  gw = await startGateway({ capabilities });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

/** A provider without a batch API for the lines: the OpenAI-compatible fake reached as a generic OpenAI-compatible provider would still have one, so name openai but use `immediate`. */
const headers = () => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) });

describe('gateway-managed batches', () => {
  it('runs 1,000 lines through the data plane, with failing lines in the error file', async () => {
    fake.reset();
    const client = gw.openai(headers());
    const failing = new Set([3, 250, 999]);
    const input = await uploadInput(gw.openai(), chatLines(1000, failing));
    const created = await client.batches.create({
      input_file_id: input,
      endpoint: '/v1/chat/completions',
      completion_window: 'immediate' as '24h',
      metadata: { job: 'nightly' },
    });
    expect(created).toMatchObject({
      object: 'batch',
      status: 'validating',
      endpoint: '/v1/chat/completions',
      input_file_id: input,
      completion_window: 'immediate',
      metadata: { job: 'nightly' },
    });
    expect(created).not.toHaveProperty('errors');
    expect(created).not.toHaveProperty('output_file_id');
    expect(created.id).toMatch(/^batch_gw/);
    const done = await waitFor(client, created.id, ['completed', 'failed'], 120_000);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 1000, completed: 997, failed: 3 });
    for (const k of ['created_at', 'in_progress_at', 'finalizing_at', 'completed_at', 'expires_at'] as const)
      expect(Number.isInteger(done[k])).toBe(true);
    expect(done.in_progress_at!).toBeGreaterThanOrEqual(done.created_at);
    expect(done.completed_at!).toBeGreaterThanOrEqual(done.finalizing_at!);
    const out = jsonl(await (await client.files.content(done.output_file_id!)).text());
    expect(out).toHaveLength(997);
    expect(out[0]).toMatchObject({
      custom_id: 'req-0',
      error: null,
      response: { status_code: 200, body: { object: 'chat.completion', choices: [{ message: { content: 'echo: line-0' } }] } },
    });
    expect(out[0].id).toMatch(/^batch_req_/);
    expect(out[0].response.request_id).toMatch(/^req_/);
    const errors = jsonl(await (await client.files.content(done.error_file_id!)).text());
    expect(errors.map((e) => e.custom_id)).toEqual(['req-3', 'req-250', 'req-999']);
    expect(errors[0]).toMatchObject({
      response: { status_code: 400, body: { error: { param: 'messages', provider: 'openai' } } },
      error: null,
    });
    const file = await client.files.retrieve(done.output_file_id!);
    expect(file).toMatchObject({ purpose: 'batch_output', object: 'file' });
    const counts = requestsPerLine(fake);
    // Every good line reached the provider exactly once; the three bad bodies once each (no retry on 400).
    expect(counts.get('other')).toBe(3);
    counts.delete('other');
    expect(counts.size).toBe(997);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    // Each send carries its line's Idempotency-Key (batch id and input line number).
    const keys = fake.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(1000);
    expect(keys.every((k) => typeof k === 'string' && /^batch_gw\w+:\d+$/.test(k) && k.startsWith(`${created.id}:`))).toBe(true);
  }, 180_000);

  it('fails a batch whose input is invalid, naming the lines', async () => {
    const client = gw.openai(headers());
    const text = [
      JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [] } }),
      'not json',
      JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: {} }),
      JSON.stringify({ custom_id: 'b', method: 'GET', url: '/v1/chat/completions', body: {} }),
      JSON.stringify({ custom_id: 'c', method: 'POST', url: '/v1/embeddings', body: {} }),
      JSON.stringify({ custom_id: 'd', method: 'POST', url: '/v1/chat/completions' }),
    ].join('\n');
    const input = await uploadInput(gw.openai(), text);
    const b = await client.batches.create({
      input_file_id: input,
      endpoint: '/v1/chat/completions',
      completion_window: 'immediate' as '24h',
    });
    const failed = await waitFor(client, b.id, ['failed', 'completed']);
    expect(failed.status).toBe('failed');
    expect(Number.isInteger(failed.failed_at)).toBe(true);
    expect(failed.errors!.data!.map((e) => [e.line, e.param])).toEqual([
      [2, null],
      [3, 'custom_id'],
      [4, 'method'],
      [5, 'url'],
      [6, 'body'],
    ]);
  });

  it('cancels mid-run: stops scheduling lines and ends cancelled with partial results', async () => {
    fake.reset();
    const client = gw.openai(headers());
    const input = await uploadInput(gw.openai(), chatLines(400));
    for (let i = 0; i < 400; i++) fake.fail({ delayMs: 15 });
    const b = await client.batches.create({
      input_file_id: input,
      endpoint: '/v1/chat/completions',
      completion_window: 'immediate' as '24h',
    });
    await waitFor(client, b.id, ['in_progress']);
    await new Promise((r) => setTimeout(r, 150));
    const cancelling = await client.batches.cancel(b.id);
    expect(cancelling.status).toBe('cancelling');
    expect(Number.isInteger(cancelling.cancelling_at)).toBe(true);
    const cancelled = await waitFor(client, b.id, ['cancelled']);
    expect(Number.isInteger(cancelled.cancelled_at)).toBe(true);
    const ran = cancelled.request_counts!.completed + cancelled.request_counts!.failed;
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(400);
    const sent = [...requestsPerLine(fake).values()].reduce((a, n) => a + n, 0);
    expect(sent).toBe(ran);
    await new Promise((r) => setTimeout(r, 200));
    expect([...requestsPerLine(fake).values()].reduce((a, n) => a + n, 0)).toBe(sent);
    const out = jsonl(await (await client.files.content(cancelled.output_file_id!)).text());
    expect(out).toHaveLength(cancelled.request_counts!.completed);
    const again = await client.batches.cancel(b.id).catch((e) => e);
    expect(again.status).toBe(409);
    expect(again.error).toMatchObject({ code: 'conflict', type: 'conflict_error' });
    fake.reset();
  });

  it('lists with cursor paging and the list envelope', async () => {
    const client = gw.openai();
    const input = await uploadInput(client, chatLines(1));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await client.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: 'immediate' as '24h' }))
          .id,
      );
    const page = (await (await gw.fetch('/v1/batches?limit=2')).json()) as any;
    expect(page).toMatchObject({ object: 'list', has_more: true, first_id: ids[2], last_id: ids[1] });
    expect(page.data.map((b: any) => b.id)).toEqual([ids[2], ids[1]]);
    const next = (await (await gw.fetch(`/v1/batches?limit=2&after=${ids[1]}`)).json()) as any;
    expect(next.data[0].id).toBe(ids[0]);
    const all: string[] = [];
    for await (const b of client.batches.list({ limit: 2 })) all.push(b.id);
    expect(all.slice(0, 3)).toEqual([ids[2], ids[1], ids[0]]);
  });

  it('refuses at creation (404) an input file that does not exist or belongs to another workspace, creating no batch', async () => {
    const deps = gw.gateway.deps;
    const now = Date.now();
    const org = deps.runtime.current.workspacesById.get(deps.runtime.current.defaultWorkspaceId)!.organisation_id;
    const wsId = uuid();
    await deps.store.db
      .insertInto('workspaces')
      .values({
        id: wsId,
        organisation_id: org,
        name: 'Batches B',
        slug: `batches-b-${wsId.slice(0, 8)}`,
        status: 'active',
        settings: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await deps.runtime.changed();
    const created = await gw.fetch('/v1/api-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'ws-b', type: 'workspace-service', workspace_id: wsId }),
    });
    expect(created.status).toBe(201);
    const otherKey = ((await created.json()) as { key: string }).key;
    const theirs = await uploadInput(gw.openai({ 'x-gateway-api-key': otherKey }), chatLines(1));
    const before = (await gw.openai().batches.list({ limit: 100 })).data.length;
    const base = { endpoint: '/v1/chat/completions', completion_window: 'immediate' };
    const cases: Array<[string, Record<string, string>]> = [
      ['file-gwnope', headers()],
      [theirs, headers()],
      // Not a gateway file and no provider that could hold it.
      ['file-abc123', {}],
      // A provider with a Files API that does not know the file.
      ['file-abc123', headers()],
    ];
    for (const [input_file_id, h] of cases) {
      const r = await gw.fetch('/v1/batches', { method: 'POST', headers: h, body: JSON.stringify({ ...base, input_file_id }) });
      expect(r.status, input_file_id).toBe(404);
      expect(((await r.json()) as any).error).toMatchObject({ type: 'not_found_error', code: 'not_found', param: 'input_file_id' });
    }
    expect((await gw.openai().batches.list({ limit: 100 })).data.length).toBe(before);
    // The owner of the file can use it.
    const own = await gw.fetch('/v1/batches', {
      method: 'POST',
      headers: { ...headers(), 'x-gateway-api-key': otherKey },
      body: JSON.stringify({ ...base, input_file_id: theirs }),
    });
    expect(own.status).toBe(200);
  });

  it('refuses bad inputs in the error shape', async () => {
    const input = await uploadInput(gw.openai(), chatLines(1));
    const post = (body: unknown) => gw.fetch('/v1/batches', { method: 'POST', body: JSON.stringify(body) });
    const base = { input_file_id: input, endpoint: '/v1/chat/completions', completion_window: 'immediate' };
    const cases: Array<[unknown, number, string]> = [
      [{ ...base, endpoint: '/v1/images' }, 400, 'body.endpoint'],
      [{ ...base, completion_window: '1h' }, 400, 'body.completion_window'],
      [{ endpoint: base.endpoint, completion_window: 'immediate' }, 400, 'body.input_file_id'],
      [{ ...base, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 400, 'metadata'],
      [{ ...base, metadata: { ['k'.repeat(65)]: 'v' } }, 400, `metadata.${'k'.repeat(65)}`],
      [{ ...base, metadata: { k: 'v'.repeat(513) } }, 400, 'metadata.k'],
    ];
    for (const [body, status, param] of cases) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      const e = (await r.json()) as any;
      expect(e.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
    }
    expect((await gw.fetch('/v1/batches?limit=101')).status).toBe(400);
    const fileOfOtherPurpose = (await gw.openai().files.create({ file: new File(['{}'], 'x.jsonl'), purpose: 'fine-tune' })).id;
    const wrongPurpose = await post({ ...base, input_file_id: fileOfOtherPurpose });
    expect(wrongPurpose.status).toBe(400);
    expect(((await wrongPurpose.json()) as any).error).toMatchObject({ code: 'invalid_request', param: 'input_file_id' });
    const r404 = await gw.fetch('/v1/batches/batch_gwnope');
    expect(r404.status).toBe(404);
    expect(((await r404.json()) as any).error).toMatchObject({ code: 'not_found', param: 'batch_id' });
  });
});
