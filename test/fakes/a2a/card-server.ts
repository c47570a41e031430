import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A v0.3 agent card (the shape of the `/.well-known/agent.json` era), signed. */
export function legacyCard(url: string): Record<string, unknown> {
  return {
    name: 'Legacy agent',
    description: 'A v0.3 agent',
    url,
    version: '0.1.0',
    protocolVersion: '0.3.0',
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'only', name: 'Only', description: 'The one skill', tags: [] }],
    supportsAuthenticatedExtendedCard: true,
    signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' }],
  };
}

/**
 * Agent cards that go wrong, one per path prefix (`<origin>/<case>` is the agent server URL):
 * `notjson`, `large` (over 1 MB, chunked without a length), `noname`, `nourl`, `hang` (never
 * answers), `status500`, and `legacy` (404 on agent-card.json, a v0.3 card with an `ETag` on
 * agent.json, 304 on a matching `If-None-Match`).
 */
export interface FakeCardServer {
  origin: string;
  /** Requests seen: path and `if-none-match`. */
  seen: Array<{ path: string; ifNoneMatch?: string }>;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts the card server on 127.0.0.1. */
export async function startFakeCardServer(): Promise<FakeCardServer> {
  const seen: FakeCardServer['seen'] = [];
  const hanging = new Set<ServerResponse>();
  let origin = '';
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push({ path, ifNoneMatch: req.headers['if-none-match'] });
    const [, which, ...rest] = path.split('/');
    const file = rest.join('/');
    if (which === 'legacy') {
      if (file !== '.well-known/agent.json') return json(res, 404, { error: 'not here' });
      if (req.headers['if-none-match'] === '"legacy-v1"') {
        res.writeHead(304, { etag: '"legacy-v1"' });
        return res.end();
      }
      return json(res, 200, legacyCard(`https://legacy.internal.example/a2a`), { etag: '"legacy-v1"' });
    }
    if (file !== '.well-known/agent-card.json') return json(res, 404, { error: 'not here' });
    switch (which) {
      case 'notjson':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>not a card</html>');
      case 'large': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const filler = 'x'.repeat(64 * 1024);
        res.write(`{"name":"big","url":"${origin}/large","description":"`);
        for (let i = 0; i < 20; i++) res.write(filler);
        return res.end('"}');
      }
      case 'noname':
        return json(res, 200, { url: `${origin}/noname`, description: 'no name' });
      case 'nourl':
        return json(res, 200, { name: 'no url' });
      case 'hang':
        hanging.add(res);
        return;
      case 'status500':
        return json(res, 500, { error: 'boom' });
      default:
        return json(res, 404, { error: 'unknown case' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
