import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One file of the built console, held in memory. */
export interface ConsoleFile {
  readonly body: Buffer;
  /** The gzip of `body` for compressible types when it is smaller, else undefined. */
  readonly gzip: Buffer | undefined;
  readonly contentType: string;
  /** A strong ETag of the content. */
  readonly etag: string;
  /** Under `assets/`: Vite names these by their content hash, so they may be cached for a year. */
  readonly immutable: boolean;
}

/** Content types of what Vite emits; anything else is served as bytes (`nosniff` is always set). */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt', '.webmanifest']);

/** At most this many files or bytes are loaded (a built console is a few files and well under 1 MB). */
const MAX_FILES = 500;
const MAX_BYTES = 20 * 1024 * 1024;

/** Every regular file under `dir` (no symlinks followed), as paths relative to it with `/` separators. */
function walk(dir: string, root: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, root, out);
    else if (entry.isFile()) out.push(relative(root, full).split(sep).join('/'));
    if (out.length > MAX_FILES) throw new Error(`The console folder ${root} holds more than ${MAX_FILES} files.`);
  }
}

/**
 * Loads the built console (`console/dist`) into memory once: a map from its URL path (relative to
 * `/console/`, e.g. `assets/index-3f2a.js`) to the file. Only these paths are ever served, so no request
 * path reaches the file system (no traversal, no symlink escape). An absent folder gives an empty map
 * (the console is not built).
 */
export function loadConsoleFiles(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return files;
  const paths: string[] = [];
  walk(dir, dir, paths);
  let bytes = 0;
  for (const path of paths) {
    const body = readFileSync(join(dir, path));
    bytes += body.length;
    if (bytes > MAX_BYTES) throw new Error(`The console folder ${dir} is larger than ${MAX_BYTES} bytes.`);
    const ext = extname(path).toLowerCase();
    const zipped = COMPRESSIBLE.has(ext) && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined;
    files.set(path, {
      body,
      gzip: zipped && zipped.length < body.length ? zipped : undefined,
      contentType: TYPES[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      immutable: path.startsWith('assets/'),
    });
  }
  return files;
}
