#!/usr/bin/env node
/**
 * The floor: the least a Node proxy built on our stack (Fastify 5 + undici) can do, with no gateway
 * logic (no auth, no routing config, no validation, no accounting). The benchmark measures it beside
 * our gateway so the report can tell the stack's own cost from ours.
 *
 *   node bench/floor-proxy.mjs <port> <upstream origin>     # prints "listening <port>"
 *
 * POST /v1/chat/completions is forwarded to `<upstream origin>/v1/chat/completions` on a keep-alive
 * undici Pool; a non-streamed answer is read whole and sent, a stream is written chunk by chunk.
 */
import Fastify from 'fastify';
import { Pool } from 'undici';

const [port, upstream] = process.argv.slice(2);
if (!port || !upstream) {
  console.error('usage: floor-proxy.mjs <port> <upstream origin>');
  process.exit(2);
}
const pool = new Pool(upstream, { connections: 256, pipelining: 1 });
const app = Fastify({ logger: false });

app.post('/v1/chat/completions', async (request, reply) => {
  const body = JSON.stringify(request.body);
  const res = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: request.headers.authorization ?? '' },
    body,
  });
  if (request.body?.stream !== true) {
    const bytes = Buffer.from(await res.body.arrayBuffer());
    return reply.code(res.statusCode).header('content-type', 'application/json').send(bytes);
  }
  reply.hijack();
  reply.raw.writeHead(res.statusCode, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  for await (const chunk of res.body) {
    if (!reply.raw.write(chunk)) await new Promise((resolve) => reply.raw.once('drain', resolve));
  }
  reply.raw.end();
});
app.get('/health', async () => 'ok');

await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log(`listening ${port}`);
const stop = () =>
  app
    .close()
    .then(() => pool.close())
    .then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
