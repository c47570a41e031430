import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { CAPABILITIES } from '../../../src/server/capabilities.js';
import { batchesCapability } from '../../../src/data-plane/endpoints/batches/batches-capability.js';
import { chatLines, jsonl, requestsPerLine, uploadInput, waitFor } from './batch-helpers.js';

/**
 * Two replicas on one PostgreSQL schema with a short lease: a batch step that takes longer than the
 * lease (validation of an input file the provider is slow to serve) keeps its lease through the worker's
 * heartbeat, so the other replica does not run the same step a second time.
 */
let a: TestGateway;
let b: TestGateway;
let fake: FakeOpenAI;
const LEASE_MS = 1000;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  const capabilities = () =>
    CAPABILITIES.map((c) => (c.name === 'batches' ? batchesCapability({ concurrency: 4, pollMs: 20, leaseMs: LEASE_MS }) : c));
  a = await startGateway({ store: 'postgres', capabilities: capabilities() });
  b = await startGateway({ store: 'postgres', pgSchema: a.pgSchema, capabilities: capabilities() });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await fake?.close();
});

const routed = () => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) });

describe('batch leases across replicas', () => {
  it('a step outliving the lease is not taken over while its worker is alive', async () => {
    const total = 12;
    const input = await uploadInput(a.openai(routed()), chatLines(total));
    fake.reset();
    // The creation check reads the file at once; the worker's read of its content takes three leases.
    fake.fail({}, { delayMs: LEASE_MS * 3 });
    const batch = await a
      .openai(routed())
      .batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: 'immediate' as '24h' });
    const done = await waitFor(a.openai(routed()), batch.id, ['completed', 'failed'], 60_000);
    expect(done.status, JSON.stringify(done.errors)).toBe('completed');
    expect(done.request_counts).toEqual({ total, completed: total, failed: 0 });
    expect(fake.requests.filter((r) => r.path === `/v1/files/${input}/content`)).toHaveLength(1);
    const counts = requestsPerLine(fake);
    expect(counts.size).toBe(total);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const out = jsonl(await (await a.openai().files.content(done.output_file_id!)).text());
    expect(out).toHaveLength(total);
  });
});
