import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { loadConsoleFiles, type ConsoleFile } from './console-files.js';

/** Where `npm run build` puts the console: `console/dist` at the package root (from `src/server/console/` and `dist/server/console/` alike). */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/**
 * The console's Content-Security-Policy: scripts, styles and connections from the gateway's own origin
 * only; no inline script or style element, no plugin, no framing, no `<base>`.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** A last path segment with a dot names a file (`app.js`); without one it is a client route of the single-page app. */
function namesFile(path: string): boolean {
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last.includes('.');
}

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile): FastifyReply {
  reply.headers(SECURITY_HEADERS);
  reply.header('content-type', file.contentType);
  reply.header('etag', file.etag);
  reply.header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  reply.header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const accepts = request.headers['accept-encoding'];
  if (file.gzip && typeof accepts === 'string' && /\bgzip\b/.test(accepts)) {
    reply.header('content-encoding', 'gzip');
    return reply.send(file.gzip);
  }
  return reply.send(file.body);
}

/**
 * Serves the web console (`console/dist`, built by `npm run build`) at `/console/`: `/console` redirects
 * there; a known file is served from memory with its content type, an ETag, gzip when accepted, and a
 * year of caching for the content-hashed `assets/`; any other path without a file extension is a client
 * route and gets `index.html` (never cached); an unknown file is 404. Every answer carries the strict CSP.
 * The files are loaded once at start; nothing a request names touches the file system. When the console
 * is not built, `/console/` answers 404 saying how to build it.
 */
export function registerConsole(app: FastifyInstance, dir: string = CONSOLE_DIST): void {
  const files = loadConsoleFiles(dir);
  const hide = { schema: { hide: true } };
  app.get('/console', hide, (_request, reply) => reply.redirect('/console/', 302));
  app.get('/console/*', hide, (request, reply) => {
    const path = (request.params as { '*': string })['*'];
    const file = files.get(path) ?? (namesFile(path) ? undefined : files.get('index.html'));
    if (!file) {
      const message = files.size === 0 ? 'The console is not built: run `npm run build`.' : `No console file '${path}'.`;
      return reply.code(404).headers(SECURITY_HEADERS).send(new GatewayError('not_found', message).toBody());
    }
    return send(request, reply, file);
  });
}
