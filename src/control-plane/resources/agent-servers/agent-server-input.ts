import { GatewayError } from '../../../foundation/errors/gateway-error.js';

/** A header name (an HTTP token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers the gateway sets itself on every call to an agent server (framing, content, the protocol
 * version the caller chose): an agent server's headers may not replace them.
 */
const RESERVED = new Set([
  'host',
  'connection',
  'content-length',
  'content-type',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'accept',
  'accept-encoding',
  'a2a-version',
  'x-gateway-api-key',
]);

/** 400 naming `headers.<name>`. */
function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/** Why a header may not be configured on an agent server (not an HTTP token, or one the gateway sets itself); undefined when it may. */
export function headerNameProblem(name: string): string | undefined {
  if (!TOKEN.test(name)) return `'${name}' is not a valid header name.`;
  if (RESERVED.has(name.toLowerCase())) return `the gateway sets '${name.toLowerCase()}' itself.`;
  return undefined;
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
    const problem = headerNameProblem(name);
    if (problem) throw invalid(param, `${param}: ${problem}`);
    if (seen.has(lower)) throw invalid(param, `${param}: header '${lower}' is given twice.`);
    seen.add(lower);
    if (/[\r\n\0]/.test(value)) throw invalid(param, `${param}: a header value cannot contain line breaks or NUL.`);
  }
}

/** Checks the skill allow-list: distinct, non-empty ids (400 naming `skills.allow[i]`). */
export function checkSkills(allow: readonly string[]): void {
  const seen = new Set<string>();
  allow.forEach((id, i) => {
    if (seen.has(id)) throw invalid(`skills.allow[${i}]`, `skills.allow[${i}]: skill '${id}' is listed twice.`);
    seen.add(id);
  });
}
