/**
 * A tiny OTLP/HTTP receiver for the benchmark's production scenario: accepts `POST /v1/traces` (JSON
 * or protobuf), reads and drops the body, answers 200 with an empty export response, and counts what
 * it received (so the report can show the gateway really exported). Runs in the runner's process.
 */
import http from 'node:http';

/**
 * Starts the receiver on 127.0.0.1 (any free port).
 * @returns {Promise<{ url: string, stats: { requests: number, bytes: number, refused: number }, close(): Promise<void> }>}
 */
export async function startOtlpReceiver() {
  const stats = { requests: 0, bytes: 0, refused: 0 };
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      stats.refused++;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    req.on('data', (chunk) => {
      stats.bytes += chunk.length;
    });
    req.on('end', () => {
      stats.requests++;
      const json = String(req.headers['content-type'] ?? '').includes('json');
      // An empty ExportTraceServiceResponse: `{}` in JSON, zero bytes in protobuf.
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
