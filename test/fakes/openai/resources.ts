import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { sendJson, type RecordedRequest } from '../shared/fake-server.js';

/**
 * The OpenAI files, batches and fine-tuning endpoints of the fake, with simulated progress: every read
 * of a batch or job moves it one step on (validating → in_progress → finalizing → completed;
 * validating_files → queued → running → succeeded), so clients can poll it to the end.
 * @see https://platform.openai.com/docs/api-reference/files
 * @see https://platform.openai.com/docs/api-reference/batch
 * @see https://platform.openai.com/docs/api-reference/fine-tuning
 */
export interface FakeResources {
  files: Map<string, { object: Record<string, unknown>; content: Buffer }>;
  batches: Map<string, Record<string, unknown>>;
  jobs: Map<string, { job: Record<string, unknown>; events: Record<string, unknown>[]; checkpoints: Record<string, unknown>[] }>;
}

const STATE = new WeakMap<object, FakeResources>();

/** The resource state of one fake (keyed by its options object). */
export function resourcesOf(key: object): FakeResources {
  let s = STATE.get(key);
  if (!s) {
    s = { files: new Map(), batches: new Map(), jobs: new Map() };
    STATE.set(key, s);
  }
  return s;
}

const now = () => Math.floor(Date.now() / 1000);
const rid = (prefix: string) => prefix + randomBytes(12).toString('hex');

function notFound(res: ServerResponse, what: string): void {
  sendJson(res, 404, { error: { message: `No such ${what}`, type: 'invalid_request_error', param: null, code: null } });
}

function bad(res: ServerResponse, message: string, param: string | null): void {
  sendJson(res, 400, { error: { message, type: 'invalid_request_error', param, code: null } });
}

function page<T extends { id: unknown }>(items: T[], query: URLSearchParams, defaultLimit: number) {
  const limit = Number(query.get('limit') ?? defaultLimit);
  const after = query.get('after');
  const start = after ? items.findIndex((i) => i.id === after) + 1 : 0;
  const data = items.slice(start, start + limit);
  return { object: 'list', data, has_more: start + limit < items.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** Serves a resource path; false when the path is not one of them. */
export async function handleResources(key: object, req: RecordedRequest, res: ServerResponse, path: string): Promise<boolean> {
  const s = resourcesOf(key);
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'files') return (files(s, req, res, parts), true);
  if (parts[0] === 'batches') return (batches(s, req, res, parts), true);
  if (parts[0] === 'fine_tuning' && parts[1] === 'jobs') return (jobs(s, req, res, parts.slice(1)), true);
  return false;
}

async function files(s: FakeResources, req: RecordedRequest, res: ServerResponse, parts: string[]): Promise<void> {
  if (req.method === 'POST' && parts.length === 1) {
    const form = await new Response(new Uint8Array(req.rawBody), { headers: { 'content-type': String(req.headers['content-type']) } })
      .formData()
      .catch(() => undefined);
    const file = form?.get('file');
    const purpose = form?.get('purpose');
    if (!file || typeof file === 'string') return bad(res, "Missing required parameter: 'file'.", 'file');
    if (typeof purpose !== 'string' || !purpose) return bad(res, "Missing required parameter: 'purpose'.", 'purpose');
    const content = Buffer.from(await file.arrayBuffer());
    const object = {
      id: rid('file-'),
      object: 'file',
      bytes: content.length,
      created_at: now(),
      filename: file.name,
      purpose,
      status: 'processed',
      status_details: null,
    };
    s.files.set(object.id, { object, content });
    return sendJson(res, 200, object);
  }
  if (req.method === 'GET' && parts.length === 1) {
    let all = [...s.files.values()].map((f) => f.object as { id: string; purpose?: string });
    const purpose = req.query.get('purpose');
    if (purpose) all = all.filter((f) => f.purpose === purpose);
    return sendJson(res, 200, page(all, req.query, 10000));
  }
  const f = s.files.get(parts[1] ?? '');
  if (!f) return notFound(res, 'file');
  if (req.method === 'GET' && parts.length === 2) return sendJson(res, 200, f.object);
  if (req.method === 'GET' && parts[2] === 'content') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': f.content.length });
    return void res.end(f.content);
  }
  if (req.method === 'DELETE' && parts.length === 2) {
    s.files.delete(parts[1]!);
    return sendJson(res, 200, { id: parts[1], object: 'file', deleted: true });
  }
  notFound(res, 'route');
}

/** Moves a batch one step on and builds its output file when it completes. */
function advanceBatch(s: FakeResources, b: Record<string, unknown>): void {
  const t = now();
  const status = b.status;
  if (status === 'validating') Object.assign(b, { status: 'in_progress', in_progress_at: t });
  else if (status === 'in_progress') Object.assign(b, { status: 'finalizing', finalizing_at: t });
  else if (status === 'cancelling') Object.assign(b, { status: 'cancelled', cancelled_at: t });
  else if (status === 'finalizing') {
    const input = s.files.get(String(b.input_file_id));
    const lines = (input?.content.toString('utf8') ?? '').split('\n').filter((l) => l.trim());
    const out = lines.map((l) => {
      const line = JSON.parse(l);
      const body = {
        id: rid('chatcmpl-'),
        object: 'chat.completion',
        created: t,
        model: line.body?.model ?? 'gpt-4o',
        choices: [{ index: 0, message: { role: 'assistant', content: 'batched' }, finish_reason: 'stop', logprobs: null }],
      };
      return JSON.stringify({
        id: rid('batch_req_'),
        custom_id: line.custom_id,
        response: { status_code: 200, request_id: rid('req_'), body },
        error: null,
      });
    });
    const content = Buffer.from(out.map((l) => l + '\n').join(''));
    const object = {
      id: rid('file-'),
      object: 'file',
      bytes: content.length,
      created_at: t,
      filename: 'batch_output.jsonl',
      purpose: 'batch_output',
      status: 'processed',
      status_details: null,
    };
    s.files.set(object.id, { object, content });
    Object.assign(b, {
      status: 'completed',
      completed_at: t,
      output_file_id: object.id,
      request_counts: { total: lines.length, completed: lines.length, failed: 0 },
    });
  }
}

function batches(s: FakeResources, req: RecordedRequest, res: ServerResponse, parts: string[]): void {
  if (req.method === 'POST' && parts.length === 1) {
    const body = req.body ?? {};
    if (!s.files.has(body.input_file_id)) return bad(res, `Invalid 'input_file_id': '${body.input_file_id}'.`, 'input_file_id');
    if (body.completion_window !== '24h') return bad(res, "Invalid 'completion_window': must be '24h'.", 'completion_window');
    const t = now();
    const b = {
      id: rid('batch_'),
      object: 'batch',
      endpoint: body.endpoint,
      errors: null,
      input_file_id: body.input_file_id,
      completion_window: '24h',
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      created_at: t,
      in_progress_at: null,
      expires_at: t + 86400,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
      metadata: body.metadata ?? null,
    };
    s.batches.set(b.id, b);
    return sendJson(res, 200, b);
  }
  if (req.method === 'GET' && parts.length === 1)
    return sendJson(res, 200, page([...s.batches.values()].reverse() as Array<{ id: unknown }>, req.query, 20));
  const b = s.batches.get(parts[1] ?? '');
  if (!b) return notFound(res, 'batch');
  if (req.method === 'GET' && parts.length === 2) {
    const snapshot = { ...b };
    advanceBatch(s, b);
    return sendJson(res, 200, snapshot);
  }
  if (req.method === 'POST' && parts[2] === 'cancel') {
    if (b.status === 'completed' || b.status === 'failed' || b.status === 'expired' || b.status === 'cancelled') {
      return sendJson(res, 409, {
        error: { message: `Cannot cancel a batch with status ${b.status}.`, type: 'invalid_request_error', param: null, code: null },
      });
    }
    Object.assign(b, { status: 'cancelling', cancelling_at: now() });
    return sendJson(res, 200, b);
  }
  notFound(res, 'route');
}

/** Moves a fine-tuning job one step on, adding events and checkpoints as it runs. */
function advanceJob(j: { job: Record<string, unknown>; events: Record<string, unknown>[]; checkpoints: Record<string, unknown>[] }): void {
  const t = now();
  const job = j.job;
  const event = (message: string) =>
    j.events.unshift({
      object: 'fine_tuning.job.event',
      id: rid('ftevent-'),
      created_at: t,
      level: 'info',
      message,
      data: {},
      type: 'message',
    });
  if (job.status === 'validating_files') {
    job.status = 'queued';
    event('Files validated, job queued');
  } else if (job.status === 'queued') {
    job.status = 'running';
    event('Fine-tuning job started');
  } else if (job.status === 'running' && j.checkpoints.length < 3) {
    const step = (j.checkpoints.length + 1) * 10;
    j.checkpoints.unshift({
      object: 'fine_tuning.job.checkpoint',
      id: rid('ftckpt_'),
      created_at: t,
      fine_tuned_model_checkpoint: `ft:${job.model}:fake::ckpt-step-${step}`,
      step_number: step,
      metrics: {
        step,
        train_loss: 1 / step,
        train_mean_token_accuracy: 0.9,
        valid_loss: 1 / step,
        valid_mean_token_accuracy: 0.9,
        full_valid_loss: 1 / step,
        full_valid_mean_token_accuracy: 0.9,
      },
      fine_tuning_job_id: job.id,
    });
    event(`Step ${step}: training loss=${(1 / step).toFixed(4)}`);
  } else if (job.status === 'running') {
    Object.assign(job, {
      status: 'succeeded',
      finished_at: t,
      trained_tokens: 12345,
      fine_tuned_model: `ft:${job.model}:fake:${job.suffix ?? ''}:${String(job.id).slice(6, 14)}`,
    });
    event('The job has successfully completed');
  }
}

function jobs(s: FakeResources, req: RecordedRequest, res: ServerResponse, parts: string[]): void {
  if (req.method === 'POST' && parts.length === 1) {
    const body = req.body ?? {};
    if (typeof body.model !== 'string') return bad(res, "Missing required parameter: 'model'.", 'model');
    if (!s.files.has(body.training_file)) return bad(res, `invalid training_file: ${body.training_file}`, 'training_file');
    const job = {
      object: 'fine_tuning.job',
      id: rid('ftjob-'),
      model: body.model,
      created_at: now(),
      finished_at: null,
      fine_tuned_model: null,
      organization_id: 'org-fake',
      result_files: [],
      status: 'validating_files',
      validation_file: body.validation_file ?? null,
      training_file: body.training_file,
      hyperparameters: { n_epochs: 'auto', batch_size: 'auto', learning_rate_multiplier: 'auto' },
      trained_tokens: null,
      error: {},
      seed: body.seed ?? 42,
      integrations: body.integrations ?? null,
      estimated_finish: null,
      method: body.method ?? { type: 'supervised', supervised: { hyperparameters: { n_epochs: 'auto' } } },
      suffix: body.suffix ?? null,
      metadata: body.metadata ?? null,
    };
    s.jobs.set(job.id, {
      job,
      events: [
        {
          object: 'fine_tuning.job.event',
          id: rid('ftevent-'),
          created_at: job.created_at,
          level: 'info',
          message: `Created fine-tuning job: ${job.id}`,
          data: {},
          type: 'message',
        },
      ],
      checkpoints: [],
    });
    return sendJson(res, 200, job);
  }
  if (req.method === 'GET' && parts.length === 1)
    return sendJson(res, 200, page([...s.jobs.values()].map((j) => j.job as { id: unknown }).reverse(), req.query, 20));
  const j = s.jobs.get(parts[1] ?? '');
  if (!j) return notFound(res, 'fine-tuning job');
  if (req.method === 'GET' && parts.length === 2) {
    const snapshot = { ...j.job };
    advanceJob(j);
    return sendJson(res, 200, snapshot);
  }
  if (req.method === 'POST' && parts[2] === 'cancel') {
    if (['succeeded', 'failed', 'cancelled'].includes(String(j.job.status))) return bad(res, `Job has already ${j.job.status}.`, null);
    Object.assign(j.job, { status: 'cancelled', finished_at: now() });
    return sendJson(res, 200, j.job);
  }
  if (req.method === 'GET' && parts[2] === 'events') return sendJson(res, 200, page(j.events as Array<{ id: unknown }>, req.query, 20));
  if (req.method === 'GET' && parts[2] === 'checkpoints')
    return sendJson(res, 200, page(j.checkpoints as Array<{ id: unknown }>, req.query, 10));
  notFound(res, 'route');
}
