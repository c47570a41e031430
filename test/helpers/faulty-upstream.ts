import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';

/** The ways a {@link FaultyUpstream} misbehaves; the first path segment of a request picks one. */
export const FAULTS = ['redirect-302', 'redirect-307', 'reset-mid-body', 'hang', 'garbage', 'close-after-headers'] as const;

/** One of {@link FAULTS}. */
export type Fault = (typeof FAULTS)[number];

/**
 * A local HTTP server that answers every request badly, the way its path's first segment says
 * (`/<fault>/anything`): a redirect (302 or 307, to a dead local port), a JSON body cut off by a
 * connection reset, no answer at all, an HTML page with status 200, or status and headers followed by
 * a closed connection. It stands in for every kind of upstream (provider, webhook, agent server, MCP
 * server, JWKS URL, OIDC issuer, secret manager). Counts requests per fault.
 */
export class FaultyUpstream {
  /** Requests seen, per fault. */
  readonly hits = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private readonly server;
  private readonly scheme: 'http' | 'https';
  private port = 0;

  /** Plain HTTP, or HTTPS with `tls` (a certificate valid for 127.0.0.1). */
  constructor(tls?: { cert: string; key: string }) {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.answer(req, res);
    this.server = tls ? createTlsServer(tls, handler) : createServer(handler);
    this.scheme = tls ? 'https' : 'http';
  }

  /** Starts listening on a free loopback port. */
  async start(): Promise<this> {
    this.server.on(this.scheme === 'https' ? 'secureConnection' : 'connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** `http(s)://127.0.0.1:<port>/<fault>`: the base URL of an upstream with that fault. */
  url(fault: Fault): string {
    return `${this.scheme}://127.0.0.1:${this.port}/${fault}`;
  }

  /** Closes the server and every connection it still holds (the hung ones). */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fault = (req.url ?? '/').split('/')[1] as Fault;
    this.hits.set(fault, (this.hits.get(fault) ?? 0) + 1);
    // Read the request first (a reset before it is read would be a different fault: a refused upload).
    for await (const _ of req);
    switch (fault) {
      case 'redirect-302':
      case 'redirect-307': {
        const body = 'Moved elsewhere';
        res.writeHead(fault === 'redirect-302' ? 302 : 307, {
          location: 'http://127.0.0.1:1/elsewhere?token=secret',
          'content-type': 'text/plain',
          'content-length': String(body.length),
        });
        res.end(body);
        return;
      }
      case 'reset-mid-body':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.write('{"id":"x","object":"list","data":[{"id":', () => setTimeout(() => reset(res.socket), 20));
        return;
      case 'hang':
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>Not what you asked for</body></html>');
        return;
      case 'close-after-headers':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.flushHeaders();
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      default:
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{}');
    }
  }
}

/** Ends a connection with a TCP reset (a TLS socket, which cannot send one, is destroyed). */
function reset(socket: Socket | null): void {
  if (!socket) return;
  if ('encrypted' in socket) socket.destroy();
  else socket.resetAndDestroy();
}
