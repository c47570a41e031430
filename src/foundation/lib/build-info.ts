import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** What this build is: `package.json`'s version and the commit it was built from (operations.md §1). */
export interface BuildInfo {
  version: string;
  commit: string;
}

// This file is src/foundation/lib/build-info.ts or dist/foundation/lib/build-info.js: the package root is two levels up.
const ROOT = resolve(import.meta.dirname, '../../..');
const SHA = /^[0-9a-f]{7,40}$/;

/** The git HEAD of `root` when it is a checkout (a branch ref, packed or loose, or a detached sha), read without the git binary. */
function gitHead(root: string): string | undefined {
  try {
    const gitDir = join(root, '.git');
    let dir = gitDir;
    // A worktree's `.git` is a file naming its git directory.
    if (statSync(gitDir).isFile())
      dir = resolve(
        root,
        readFileSync(gitDir, 'utf8')
          .replace(/^gitdir:/, '')
          .trim(),
      );
    const head = readFileSync(join(dir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref:')) return SHA.test(head) ? head : undefined;
    const ref = head.slice(4).trim();
    // A worktree keeps its HEAD but shares refs with the main repository (`commondir`).
    const common = existsSync(join(dir, 'commondir')) ? resolve(dir, readFileSync(join(dir, 'commondir'), 'utf8').trim()) : dir;
    for (const base of [dir, common]) {
      const loose = join(base, ref);
      if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    }
    const packed = join(common, 'packed-refs');
    if (existsSync(packed))
      for (const line of readFileSync(packed, 'utf8').split('\n')) if (line.endsWith(' ' + ref)) return line.split(' ')[0];
  } catch {
    // Not a checkout, or one we cannot read: the commit is unknown.
  }
  return undefined;
}

let cached: BuildInfo | undefined;

/**
 * The version (`package.json`) and commit: `GATEWAY_COMMIT` when set (the image sets it from the build
 * argument `GIT_COMMIT`), else the git HEAD of the directory the gateway runs from, else `unknown`.
 */
export function buildInfo(env: NodeJS.ProcessEnv = process.env): BuildInfo {
  if (cached && env === process.env) return cached;
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const fromEnv = env.GATEWAY_COMMIT?.trim().toLowerCase();
  const head = gitHead(ROOT);
  const commit = fromEnv && SHA.test(fromEnv) ? fromEnv : head && SHA.test(head) ? head : 'unknown';
  const info = { version, commit };
  if (env === process.env) cached = info;
  return info;
}
