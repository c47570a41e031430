import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { CAPABILITIES } from '../../../src/server/capabilities.js';
import { batchesCapability } from '../../../src/data-plane/endpoints/batches/batches-capability.js';
import { batchWorkerOptions, idlePollOf } from '../../../src/data-plane/endpoints/batches/batch-worker.js';
import { chatLines, uploadInput, waitFor } from './batch-helpers.js';

/**
 * The batch worker's idle pause: with no active batch it scans every `idlePollMs` instead of every `pollMs`,
 * and a batch created meanwhile on this replica wakes it at once (it does not wait for the next scan).
 */
describe('batch worker when idle', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    // An idle scan only every minute: a batch that completes within seconds was started by the create call's wake-up.
    const capabilities = CAPABILITIES.map((c) =>
      c.name === 'batches' ? batchesCapability({ concurrency: 4, pollMs: 20, idlePollMs: 60_000 }) : c,
    );
    gw = await startGateway({ capabilities });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('defaults to ten scan pauses, at most 2 s, never below the scan pause; GATEWAY_BATCH_IDLE_POLL_MS sets it', () => {
    expect(batchWorkerOptions({})).toMatchObject({ pollMs: 200, idlePollMs: 2_000 });
    expect(batchWorkerOptions({ GATEWAY_BATCH_POLL_MS: '20' })).toMatchObject({ pollMs: 20, idlePollMs: 200 });
    expect(batchWorkerOptions({ GATEWAY_BATCH_POLL_MS: '600000' })).toMatchObject({ idlePollMs: 600_000 });
    expect(batchWorkerOptions({ GATEWAY_BATCH_IDLE_POLL_MS: '5000' }).idlePollMs).toBe(5_000);
    expect(idlePollOf(5_000)).toBe(5_000);
  });

  it('runs a batch created while idle at once, twice in a row (the worker goes idle again in between)', async () => {
    const client = gw.openai({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) });
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, 300));
      const input = await uploadInput(gw.openai(), chatLines(5));
      const created = await client.batches.create({
        input_file_id: input,
        endpoint: '/v1/chat/completions',
        completion_window: 'immediate' as '24h',
      });
      const done = await waitFor(client, created.id, ['completed', 'failed'], 20_000);
      expect(done.request_counts).toEqual({ total: 5, completed: 5, failed: 0 });
    }
  });
});
