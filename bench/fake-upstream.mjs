#!/usr/bin/env node
/**
 * A deliberately cheap fake OpenAI upstream for load tests (node:http, no framework).
 *
 *   node bench/fake-upstream.mjs [port]      # prints "listening <port>" on stdout
 *
 * Routes (any method is read as POST; the body is never JSON-parsed):
 * - `.../chat/completions`: a fixed ~600-byte chat completion; when the body contains
 *   `"stream":true`, a 20-chunk SSE stream (role chunk first, then the rest on the next tick, then `[DONE]`),
 *   as OpenAI streams with `stream_options.include_usage`: every chunk carries `"usage":null` but the last,
 *   a usage-only chunk (`choices: []`).
 * - any path starting with `/fail/` (e.g. custom_host `http://127.0.0.1:<port>/fail/v1`), or a request
 *   carrying `x-fake-fail: 1`: 500 with an OpenAI-shaped error body (the fallback scenario's first target).
 * - any path starting with `/pause/<ms>/`: a stream that waits <ms> between chunk 10 and chunk 11
 *   (checks that a gateway passes chunks through instead of buffering the stream).
 * - `GET /health`: 200 `ok`.
 */
import http from 'node:http';

const CREATED = 1_700_000_000;
const MODEL = 'gpt-4o-mini-2024-07-18';
const ID = 'chatcmpl-bench0000000000000000000000001';

const completion = {
  id: ID,
  object: 'chat.completion',
  created: CREATED,
  model: MODEL,
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'A fixed answer, so every request costs the upstream the same.',
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 19,
    completion_tokens: 31,
    total_tokens: 50,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_bench000001',
};

/** The fixed non-streamed answer. */
export const COMPLETION_BODY = Buffer.from(JSON.stringify(completion));

const WORDS = [
  'Streams',
  ' are',
  ' passed',
  ' through',
  ' chunk',
  ' by',
  ' chunk',
  ',',
  ' so',
  ' the',
  ' client',
  ' sees',
  ' the',
  ' first',
  ' token',
  ' early',
  '.',
];

function chunk(delta, finish) {
  const c = {
    id: ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    system_fingerprint: 'fp_bench000001',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  };
  return `data: ${JSON.stringify(c)}\n\n`;
}

/** The 20 SSE frames of the streamed answer plus the `[DONE]` frame, each a Buffer. */
export const STREAM_FRAMES = [
  chunk({ role: 'assistant', content: '', refusal: null }, null),
  ...WORDS.map((w) => chunk({ content: w }, null)),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: ID, object: 'chat.completion.chunk', created: CREATED, model: MODEL, system_fingerprint: 'fp_bench000001', choices: [], usage: completion.usage })}\n\n`,
  'data: [DONE]\n\n',
].map((s) => Buffer.from(s));

const FIRST_FRAME = STREAM_FRAMES[0];
const REST_FRAMES = Buffer.concat(STREAM_FRAMES.slice(1));
const ERROR_BODY = Buffer.from(
  JSON.stringify({ error: { message: 'The bench upstream fails on purpose.', type: 'server_error', param: null, code: null } }),
);
const STREAM_MARK = Buffer.from('"stream":true');
const JSON_HEADERS = { 'content-type': 'application/json', 'content-length': String(COMPLETION_BODY.length) };
const ERROR_HEADERS = { 'content-type': 'application/json', 'content-length': String(ERROR_BODY.length) };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function isStream(chunks) {
  if (chunks.length === 1) return chunks[0].includes(STREAM_MARK);
  return Buffer.concat(chunks).includes(STREAM_MARK);
}

function writeStream(res, pauseMs) {
  res.writeHead(200, SSE_HEADERS);
  res.write(FIRST_FRAME);
  if (pauseMs > 0) {
    const half = 11;
    setImmediate(() => {
      for (let i = 1; i < half; i++) res.write(STREAM_FRAMES[i]);
      setTimeout(() => res.end(Buffer.concat(STREAM_FRAMES.slice(half))), pauseMs);
    });
    return;
  }
  setImmediate(() => res.end(REST_FRAMES));
}

function handle(req, res) {
  const url = req.url;
  if (url === '/health') {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    res.end('ok');
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (url.startsWith('/fail/') || req.headers['x-fake-fail'] === '1') {
      res.writeHead(500, ERROR_HEADERS);
      res.end(ERROR_BODY);
      return;
    }
    if (!url.endsWith('/chat/completions')) {
      res.writeHead(404, ERROR_HEADERS);
      res.end(ERROR_BODY);
      return;
    }
    const pauseMs = url.startsWith('/pause/') ? Number(url.split('/')[2]) || 0 : 0;
    if (isStream(chunks)) writeStream(res, pauseMs);
    else {
      res.writeHead(200, JSON_HEADERS);
      res.end(COMPLETION_BODY);
    }
  });
}

/**
 * Starts the fake on 127.0.0.1.
 * @param {number} port 0 for any free port
 * @returns {Promise<{ server: http.Server, port: number, url: string, close(): Promise<void> }>}
 */
export function startFakeUpstream(port = 0) {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handle);
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const actual = server.address().port;
      resolve({
        server,
        port: actual,
        url: `http://127.0.0.1:${actual}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const port = Number(process.argv[2] ?? 0);
  const fake = await startFakeUpstream(port);
  process.stdout.write(`listening ${fake.port}\n`);
  const stop = () => fake.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
