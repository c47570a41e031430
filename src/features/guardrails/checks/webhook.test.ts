import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../foundation/lib/http-client.js';
import type { CheckInput } from '../check.js';
import { checkHttpFrom } from '../check-http.js';
import { after, before, deadUrl, localServer } from '../test-support.js';
import { webhook } from './webhook.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

describe('default.webhook', () => {
  const client = new HttpClient();
  const http = checkHttpFrom(client);
  const received: Received[] = [];
  let server: Awaited<ReturnType<typeof localServer>>;
  let down: string;

  beforeAll(async () => {
    down = await deadUrl();
    server = await localServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(raw || '{}') });
        const json = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        switch (req.url) {
          case '/allow':
            return json(200, { verdict: true, data: { score: 0.1 } });
          case '/deny':
            return json(200, { verdict: false, data: { reason: 'policy' }, explanation: 'blocked by policy' });
          case '/slow':
            return void setTimeout(() => json(200, { verdict: true }), 1500);
          case '/garbage':
            res.writeHead(200, { 'content-type': 'text/html' });
            return res.end('<html>oops</html>');
          case '/no-verdict':
            return json(200, { ok: true });
          default:
            return json(500, { error: 'boom' });
        }
      });
    });
  });

  afterAll(async () => {
    await server.close();
    await client.close();
  });

  const withHttp = (input: CheckInput): CheckInput => ({ ...input, http });

  it('POSTs request, response, eventType and metadata and follows the answered verdict', async () => {
    const input = withHttp(after('the answer', { id: 'x', choices: [] }));
    input.request.metadata = { team: 'core' };
    input.request.model = 'gpt-4o';
    const r = await webhook.run(input, { webhookURL: `${server.url}/allow`, headers: { 'X-Api-Key': 's3cret' }, policyId: 'pol_1' });
    expect(r).toMatchObject({ verdict: true, data: { score: 0.1 } });
    expect(r.error).toBeUndefined();
    const got = received.at(-1)!;
    expect(got.headers['x-api-key']).toBe('s3cret');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.body).toEqual({
      request: { json: input.request.body, text: 'REQUEST TEXT', model: 'gpt-4o', endpoint: 'chat' },
      response: { json: { id: 'x', choices: [] }, text: 'the answer', statusCode: 200 },
      eventType: 'afterRequestHook',
      metadata: { team: 'core' },
      policyId: 'pol_1',
    });
  });

  it('fails when the webhook answers verdict false, sending response null before the request', async () => {
    const r = await webhook.run(withHttp(before('hi')), { webhookURL: `${server.url}/deny` });
    expect(r).toMatchObject({ verdict: false, explanation: 'blocked by policy', data: { reason: 'policy' } });
    expect(received.at(-1)!.body).toMatchObject({ eventType: 'beforeRequestHook', response: null });
  });

  it('a slow webhook times out: fails open by default, closed with failOnError', async () => {
    const t0 = Date.now();
    const open = await webhook.run(withHttp(before('hi')), { webhookURL: `${server.url}/slow`, timeout: 200 });
    expect(Date.now() - t0).toBeLessThan(1200);
    expect(open).toMatchObject({ verdict: true, error: 'timed out after 200 ms' });
    const closed = await webhook.run(withHttp(before('hi')), { webhookURL: `${server.url}/slow`, timeout: 200, failOnError: true });
    expect(closed).toMatchObject({ verdict: false, error: 'timed out after 200 ms' });
  });

  it('a webhook that is down fails open or closed', async () => {
    const open = await webhook.run(withHttp(before('hi')), { webhookURL: `${down}/x` });
    expect(open.verdict).toBe(true);
    expect(open.error).toMatch(/ECONNREFUSED|reach/);
    expect((await webhook.run(withHttp(before('hi')), { webhookURL: `${down}/x`, failOnError: true })).verdict).toBe(false);
  });

  it('garbage, a missing verdict or an HTTP error fails open or closed', async () => {
    const garbage = await webhook.run(withHttp(before('hi')), { webhookURL: `${server.url}/garbage` });
    expect(garbage).toMatchObject({ verdict: true, error: 'webhook answer is not JSON with a boolean "verdict"' });
    expect((await webhook.run(withHttp(before('hi')), { webhookURL: `${server.url}/no-verdict`, failOnError: true })).verdict).toBe(false);
    const status = await webhook.run(withHttp(before('hi')), { webhookURL: `${server.url}/error`, failOnError: true });
    expect(status).toMatchObject({ verdict: false, error: 'webhook answered HTTP 500' });
  });

  it('without an HTTP function it fails per failOnError', async () => {
    expect(await webhook.run(before('hi'), { webhookURL: `${server.url}/allow` })).toMatchObject({
      verdict: true,
      error: 'no HTTP client available',
    });
  });

  it('accepts url as an alias and headers as a JSON string', () => {
    expect(() => webhook.validateParams({ url: 'https://example.com/hook', headers: '{"a":"b"}' })).not.toThrow();
  });

  it('rejects bad parameters', () => {
    expect(() => webhook.validateParams({})).toThrow(/default\.webhook\.webhookURL: is required/);
    expect(() => webhook.validateParams({ webhookURL: 'ftp://x/y' })).toThrow(/webhookURL: must be an http\(s\) URL/);
    expect(() => webhook.validateParams({ webhookURL: 'https://x.io', timeout: 0 })).toThrow(/timeout: must be between 1 and 600000/);
    expect(() => webhook.validateParams({ webhookURL: 'https://x.io', headers: { a: 1 } })).toThrow(/headers\.a: must be a string/);
    expect(() => webhook.validateParams({ webhookURL: 'https://x.io', headers: 'nope' })).toThrow(/headers: must be an object/);
    expect(() => webhook.validateParams({ webhookURL: 'https://x.io', failOnError: 1 })).toThrow(/failOnError: must be a boolean/);
  });
});
