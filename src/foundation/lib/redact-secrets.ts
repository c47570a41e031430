/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Known secret shapes. A rule with a capture group keeps the group (the `Bearer ` or `key=` before the
 * secret) and replaces only what follows it.
 */
const SHAPES = [
  // A bearer token after its scheme (an echoed Authorization header).
  String.raw`(\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{6,}`,
  // A credential in a query string or form: api_key=…, apikey=…, key=…, access_token=…, token=….
  String.raw`(\b(?:[Aa][Pp][Ii][_-]?[Kk][Ee][Yy]|[Kk][Ee][Yy]|[Aa]ccess_[Tt]oken|[Tt]oken)=)[^&\s"'#<>;,]+`,
  // OpenAI-style keys (sk-…, sk-proj-…) and Anthropic's (sk-ant-…).
  String.raw`\bsk-[A-Za-z0-9_-]{12,}`,
  // AWS access key ids (long-term and temporary).
  String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`,
  // Google API keys.
  String.raw`\bAIza[0-9A-Za-z_-]{35}`,
];

const prefixes = new Set<string>();
let pattern = compile();

function compile(): RegExp {
  const own = [...prefixes].map((p) => `${escapeRegExp(p)}[A-Za-z0-9_-]{8,}`);
  return new RegExp([...SHAPES, ...own].join('|'), 'g');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * Adds the prefix of the gateway's own keys (`API_KEY_PREFIX`) to the shapes `redactSecrets` removes.
 * Called once at startup; prefixes accumulate (several gateways in one process keep all of theirs).
 */
export function redactGatewayKeyPrefix(prefix: string): void {
  if (prefix.length === 0 || prefixes.has(prefix)) return;
  prefixes.add(prefix);
  pattern = compile();
}

/** The shortest exact credential `redactSecrets` replaces (shorter values would mangle ordinary words). */
const MIN_KNOWN_LENGTH = 8;

/**
 * `text` with secrets replaced by `[REDACTED]`: every exact value of `known` (the credentials used for
 * the call, when the caller knows them; values under 8 characters are ignored), then the known secret
 * shapes (OpenAI/Anthropic `sk-…`, AWS `AKIA…`/`ASIA…`, Google `AIza…`, bearer tokens, `api_key=` /
 * `key=` / `token=` values, the gateway's own key prefix). For error messages shown to clients and
 * stored in the request log; never called on the success path.
 */
export function redactSecrets(text: string, known: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of known) {
    if (secret !== undefined && secret.length >= MIN_KNOWN_LENGTH && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out.replace(pattern, (_match: string, bearer?: string, assignment?: string) => (bearer ?? assignment ?? '') + REDACTED);
}
