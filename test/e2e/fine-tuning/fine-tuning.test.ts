import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFile } from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const headers = () => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) });

describe('fine-tuning forwarded to a provider with a tuning API', () => {
  it('creates a job, follows it to success, lists events and checkpoints with paging, and cancels another', async () => {
    const client = gw.openai(headers());
    const training = await client.files.create({
      file: await toFile(Buffer.from('{"messages":[]}\n'), 'train.jsonl'),
      purpose: 'fine-tune',
    });
    const job = await client.fineTuning.jobs.create({
      model: 'gpt-4o-mini',
      training_file: training.id,
      suffix: 'support',
      method: { type: 'supervised', supervised: { hyperparameters: { n_epochs: 2 } } },
      integrations: [{ type: 'wandb', wandb: { project: 'p' } }],
    });
    expect(job).toMatchObject({
      object: 'fine_tuning.job',
      status: 'validating_files',
      model: 'gpt-4o-mini',
      training_file: training.id,
      fine_tuned_model: null,
      finished_at: null,
    });
    expect(job.id).toMatch(/^ftjob-/);
    const create = fake.requests.find((r) => r.method === 'POST' && r.path === '/v1/fine_tuning/jobs')!;
    expect(create.body).toMatchObject({ suffix: 'support', method: { type: 'supervised' } });
    const seen: string[] = [];
    let current = job;
    for (let i = 0; i < 10 && current.status !== 'succeeded'; i++) {
      current = await client.fineTuning.jobs.retrieve(job.id);
      seen.push(current.status);
    }
    expect(seen).toEqual(['validating_files', 'queued', 'running', 'running', 'running', 'running', 'succeeded']);
    expect(current.fine_tuned_model).toMatch(/^ft:gpt-4o-mini:fake:support:/);
    expect(Number.isInteger(current.finished_at)).toBe(true);
    const events = await client.fineTuning.jobs.listEvents(job.id, { limit: 2 });
    expect(events.data).toHaveLength(2);
    expect(events.has_more).toBe(true);
    expect(events.data[0]!.message).toBe('The job has successfully completed');
    const cps = await client.fineTuning.jobs.checkpoints.list(job.id, { limit: 2 });
    expect(cps.data.map((c) => c.step_number)).toEqual([30, 20]);
    expect(cps.data[0]).toMatchObject({ object: 'fine_tuning.job.checkpoint', fine_tuning_job_id: job.id, metrics: { step: 30 } });
    const rest = (await (
      await gw.fetch(`/v1/fine_tuning/jobs/${job.id}/checkpoints?after=${cps.data[1]!.id}`, { headers: headers() })
    ).json()) as any;
    expect(rest).toMatchObject({ object: 'list', has_more: false });
    expect(rest.data.map((c: any) => c.step_number)).toEqual([10]);
    const other = await client.fineTuning.jobs.create({
      model: 'gpt-4o-mini',
      training_file: training.id,
      suffix: 'x',
      method: { type: 'supervised' },
    });
    const cancelled = await client.fineTuning.jobs.cancel(other.id);
    expect(cancelled.status).toBe('cancelled');
    const list = await client.fineTuning.jobs.list({ limit: 1 });
    expect(list.data.map((j) => j.id)).toEqual([other.id]);
  });

  it('validates the create body before forwarding, in the error shape', async () => {
    const before = fake.requests.length;
    const post = (body: unknown, h: Record<string, string> = headers()) =>
      gw.fetch('/v1/fine_tuning/jobs', { method: 'POST', body: JSON.stringify(body), headers: h });
    const base = { model: 'gpt-4o-mini', training_file: 'file-x', suffix: 's', method: { type: 'supervised' } };
    const cases: Array<[unknown, string]> = [
      [{ ...base, model: undefined }, 'body.model'],
      [{ ...base, training_file: undefined }, 'body.training_file'],
      [{ ...base, suffix: undefined }, 'body.suffix'],
      [{ ...base, method: undefined }, 'body.method'],
      [{ ...base, suffix: 'x'.repeat(65) }, 'body.suffix'],
      [{ ...base, integrations: Array.from({ length: 6 }, () => ({ type: 'wandb', wandb: { project: 'p' } })) }, 'body.integrations'],
    ];
    for (const [body, param] of cases) {
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error', param });
    }
    expect(fake.requests.length).toBe(before);
    const none = await post(base, {});
    expect(none.status).toBe(400);
    expect(((await none.json()) as any).error.param).toBe('x-gateway-virtual-key');
    const anthropic = await post(base, { 'x-gateway-provider': 'anthropic', authorization: 'Bearer k' });
    expect(anthropic.status).toBe(400);
    expect(((await anthropic.json()) as any).error.message).toMatch(/no fine-tuning API/);
    const badLimit = await gw.fetch('/v1/fine_tuning/jobs?limit=0', { headers: headers() });
    expect(badLimit.status).toBe(400);
  });

  it('keeps the provider status of an error', async () => {
    const err = await gw
      .openai(headers())
      .fineTuning.jobs.retrieve('ftjob-nope')
      .catch((e) => e);
    expect(err.status).toBe(404);
    expect(err.error).toMatchObject({ provider: 'openai' });
  });
});
