import type { FirstStart } from './bootstrap.js';

/** The URL a person opens: `GATEWAY_PUBLIC_URL` when set, else the listening address (`localhost` for a wildcard host). */
export function consoleUrl(publicUrl: string | undefined, host: string, port: number): string {
  if (publicUrl) return `${publicUrl}/console/`;
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}/console/`;
}

/**
 * The plain lines `npm start` prints besides the JSON log: where the console is and, on a first start,
 * the admin key, the owner's console sign-in key and how to sign in (each value shown once here and
 * kept in a 0600 file of the data directory).
 */
export function startBanner(url: string, firstStart: FirstStart | undefined): string {
  const lines = ['', `Console: ${url}`];
  if (firstStart?.owner) {
    lines.push(
      `Sign in: open the console and paste the console sign-in key of ${firstStart.owner.email} (organisation owner),`,
      `  shown once here and kept in ${firstStart.owner.file}:`,
      `  ${firstStart.owner.key}`,
    );
  } else if (firstStart) {
    lines.push(
      'Sign in: the console takes the API key of a user (a workspace-user key); create a user and their key with the admin key (see docs/console.md).',
    );
  }
  if (firstStart?.adminKey) {
    lines.push(
      `Gateway admin key (API only, not for the console; shown once, also written to ${firstStart.adminKey.file}):`,
      `  ${firstStart.adminKey.value}`,
    );
  }
  lines.push('');
  return lines.join('\n') + '\n';
}
