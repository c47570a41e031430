import Mustache from 'mustache';
import { LRUCache } from 'lru-cache';

/** Mustache's parse tree: `[type, name, start, end, children?, ...]` per token. */
export type Tokens = Mustache.TemplateSpans;

/** Renders a variable's value as text: strings as they are, anything else as JSON (never HTML-escaped). */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The one Mustache writer of the prompts capability. Parsed templates are cached in a bounded LRU
 * (Mustache's own cache grows without limit); `{{x}}` and `{{{x}}}` both render `asText(x)`, because a
 * prompt is not HTML.
 */
class PromptWriter extends Mustache.Writer {
  constructor() {
    super();
    const lru = new LRUCache<string, Tokens>({ max: 5000 });
    (this as unknown as { templateCache: unknown }).templateCache = {
      set: (key: string, value: Tokens) => lru.set(key, value),
      get: (key: string) => lru.get(key),
      clear: () => lru.clear(),
    };
  }

  override unescapedValue(token: string[], context: Mustache.Context): string {
    const value: unknown = context.lookup(token[1]!);
    return value === null || value === undefined ? (undefined as unknown as string) : asText(value);
  }
}

const writer = new PromptWriter();
const OPTIONS: Mustache.RenderOptions = { escape: asText };

/** Parses a template (cached); throws Mustache's Error on a syntax error. */
export function parseMustache(text: string): Tokens {
  return writer.parse(text);
}

/** Renders parsed tokens against the variables; `partials` maps a partial name to its template text. */
export function renderTokens(tokens: Tokens, source: string, variables: Record<string, unknown>, partials: Record<string, string>): string {
  return writer.renderTokens(tokens as unknown as string[][], new Mustache.Context(variables), partials, source, OPTIONS);
}
