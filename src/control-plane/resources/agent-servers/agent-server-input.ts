import { GatewayError } from '../../../errors/gateway-error.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import { credentialHint } from '../integrations/integration-input.js';

/** A header name (an HTTP token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers the gateway sets itself on every call to an agent server (framing, content, the protocol
 * version the caller chose): an agent server's headers may not replace them.
 */
const RESERVED = new Set(['host', 'connection', 'content-length', 'content-type', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection', 'accept', 'accept-encoding', 'a2a-version', 'x-gateway-api-key']);

/** 400 naming `headers.<name>`. */
function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/**
 * Checks the headers of an agent server: HTTP token names (not one the gateway sets itself, not twice
 * in another case), values without line breaks; 400 naming the header otherwise.
 */
export function checkHeaders(headers: Record<string, string>): void {
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const param = `headers.${name}`;
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) throw invalid(param, `${param}: '${name}' is not a valid header name.`);
    if (RESERVED.has(lower)) throw invalid(param, `${param}: the gateway sets '${lower}' itself.`);
    if (seen.has(lower)) throw invalid(param, `${param}: header '${lower}' is given twice.`);
    seen.add(lower);
    if (/[\r\n\0]/.test(value)) throw invalid(param, `${param}: a header value cannot contain line breaks or NUL.`);
  }
}

/** Seals the headers (context `<id>:headers`) and makes their hints; no headers seal to ''. */
export function sealHeaders(box: SecretBox, id: string, headers: Record<string, string>): { sealed: string; hints: Record<string, string> } {
  const lowered = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const hints = Object.fromEntries(Object.entries(lowered).map(([k, v]) => [k, credentialHint(v)]));
  return { sealed: Object.keys(lowered).length ? box.encrypt(JSON.stringify(lowered), `${id}:headers`) : '', hints };
}

/** Checks the skill allow-list: distinct, non-empty ids (400 naming `skills.allow[i]`). */
export function checkSkills(allow: readonly string[]): void {
  const seen = new Set<string>();
  allow.forEach((id, i) => {
    if (seen.has(id)) throw invalid(`skills.allow[${i}]`, `skills.allow[${i}]: skill '${id}' is listed twice.`);
    seen.add(id);
  });
}
