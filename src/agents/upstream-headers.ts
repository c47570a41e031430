import type { SecretBox } from '../lib/secret-box.js';
import type { AgentServer } from '../store/repos/agent-servers.js';

/** Opened headers per loaded agent server row (a reload brings new row objects, so stale entries go with the old snapshot). */
const opened = new WeakMap<AgentServer, Readonly<Record<string, string>>>();

/** The headers an agent server is called with, opened from their sealed form once per loaded row. */
export function upstreamHeaders(box: SecretBox, server: AgentServer): Readonly<Record<string, string>> {
  if (server.headers_sealed === '') return {};
  let headers = opened.get(server);
  if (!headers) {
    headers = JSON.parse(box.decrypt(server.headers_sealed, `${server.id}:headers`)) as Record<string, string>;
    opened.set(server, headers);
  }
  return headers;
}
