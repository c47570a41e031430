import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
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

const config = () => JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url });

/** A request with `content-type: application/json` and an empty body, as the official Python SDK sends bodiless calls. */
function emptyJson(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      gw.url + path,
      { method, headers: { 'x-gateway-api-key': gw.adminKey, 'content-type': 'application/json', 'content-length': '0', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function expectShape(body: any, code: string) {
  expect(Object.keys(body.error).sort(), JSON.stringify(body).slice(0, 300)).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(typeof body.error.type).toBe('string');
}

/** Sends raw bytes on a fresh socket and returns what came back (status line, headers, body). */
function rawExchange(port: number, bytes: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      if (status === 0) reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
      else resolve({ status, headers: head, body });
    });
  });
}

const port = () => Number(new URL(gw.url).port);

describe('empty JSON bodies where no body is required', () => {
  it('files.delete', async () => {
    const client = gw.openai();
    const f = await client.files.create({ file: await toFile(Buffer.from('{"a":1}\n'), 'a.jsonl'), purpose: 'batch' });
    const r = await emptyJson('DELETE', `/v1/files/${f.id}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ id: f.id, deleted: true });
  });

  it('batches.cancel, responses.delete and an admin DELETE reach their route (unknown id: 404)', async () => {
    for (const [method, path] of [
      ['POST', '/v1/batches/batch_unknown/cancel'],
      ['DELETE', '/v1/responses/resp_unknown'],
      ['DELETE', '/v1/configs/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const r = await emptyJson(method, path);
      expect(r.status, `${method} ${path} ${JSON.stringify(r.body)}`).toBe(404);
      expectShape(r.body, 'not_found');
    }
  });

  it('fine-tuning cancel is forwarded', async () => {
    const client = gw.openai({ 'x-gateway-config': config() });
    const training = await client.files.create({
      file: await toFile(Buffer.from('{"messages":[]}\n'), 'train.jsonl'),
      purpose: 'fine-tune',
    });
    const job = await client.fineTuning.jobs.create({
      model: 'gpt-4o-mini',
      training_file: training.id,
      suffix: 'x',
      method: { type: 'supervised' },
    });
    const r = await emptyJson('POST', `/v1/fine_tuning/jobs/${job.id}/cancel`, { 'x-gateway-config': config() });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ id: job.id, status: 'cancelled' });
  });

  it('rate-limit policy DELETE', async () => {
    const created = await gw.fetch('/v1/policies/rate-limits', {
      method: 'POST',
      body: JSON.stringify({ name: 'p', type: 'requests', unit: 'rpm', value: 5, conditions: [], group_by: [] }),
    });
    const policy = (await created.json()) as any;
    expect(created.status, JSON.stringify(policy)).toBe(201);
    const r = await emptyJson('DELETE', `/v1/policies/rate-limits/${policy.id}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('a route that requires a body still answers 400 in the usual shape', async () => {
    const r = await emptyJson('POST', '/v1/chat/completions', { 'x-gateway-config': config() });
    expect(r.status).toBe(400);
    expectShape(r.body, 'invalid_request');
    const p = await emptyJson('POST', '/v1/policies/rate-limits');
    expect(p.status).toBe(400);
    expectShape(p.body, 'invalid_request');
  });
});

describe('HTTP edge errors in the decisions.md shape', () => {
  it('a 10,000-character path id is 414 uri_too_long', async () => {
    const res = await gw.fetch(`/v1/configs/${'a'.repeat(10_000)}`);
    expect(res.status).toBe(414);
    expectShape(await res.json(), 'uri_too_long');
  });

  it('a malformed percent-encoding in the path is 400 invalid_request', async () => {
    const res = await gw.fetch('/v1/configs/%zz');
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expectShape(body, 'invalid_request');
    expect(res.headers.get('x-gateway-request-id')).toBeTruthy();
  });

  it('over-large headers are 431 headers_too_large with a JSON body', async () => {
    const r = await rawExchange(port(), `GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${'b'.repeat(40_000)}\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.headers.toLowerCase()).toContain('content-type: application/json');
    expectShape(JSON.parse(r.body), 'headers_too_large');
  });

  it('a malformed request line is 400 invalid_request with a JSON body', async () => {
    const r = await rawExchange(port(), 'NOT A REQUEST\r\n\r\n');
    expect(r.status).toBe(400);
    expectShape(JSON.parse(r.body), 'invalid_request');
  });

  it('a body nested 100,000 levels deep is 400 invalid_request, not a 500', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const res = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': config(), 'content-type': 'application/json' },
      body: `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"metadata":${deep}}`,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_request', message: 'The request is nested too deeply.' } });
  });

  it('stays up afterwards', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get(`${gw.url}/health`, resolve));
    expect(res.statusCode).toBe(200);
    res.resume();
  });
});
