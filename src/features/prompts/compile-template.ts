import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { MAX_BODY_JSON_DEPTH, nestsDeeperThan } from '../../foundation/lib/json-depth.js';
import { parseMustache, renderTokens, type Tokens } from './mustache-writer.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/** A rendered chat message (the template decides its members; `role` is never templated). */
export type RenderedMessage = Record<string, unknown> & { role: string };

/** What a partial reference `{{> ref}}` resolves to: its text and a key naming that exact version. */
export interface ResolvedPartial {
  key: string;
  text: string;
}

/** A template compiled once per prompt version (and the partial versions it includes). */
export interface CompiledTemplate {
  /** Variables the template needs: every name referenced outside a section, partials included. */
  readonly required: readonly string[];
  /** Partial references it includes, with the version key each resolved to. */
  readonly partials: ReadonlyMap<string, string>;
  /** The messages with the variables substituted. */
  render(variables: Record<string, unknown>): RenderedMessage[];
}

type Node =
  | { k: 'tpl'; tokens: Tokens; src: string }
  | { k: 'arr'; items: Node[] }
  | { k: 'obj'; entries: Array<[string, Node]> }
  | { k: 'lit'; v: unknown };

/**
 * The messages a template text stands for: a JSON array of chat messages, or (anything else) plain
 * text that becomes one user message. Throws 400 `invalid_request` naming `param` when the text is a
 * JSON array that is not a list of chat messages, or when a Mustache tag is malformed.
 */
export function templateMessages(text: string, param = 'string'): Array<Record<string, unknown>> {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    // Deeper text would overflow the walks below (and the renderer's); the request body that carried it was checked only to its own depth.
    if (nestsDeeperThan(trimmed, MAX_BODY_JSON_DEPTH))
      throw new GatewayError('invalid_request', `${param} is nested more than ${MAX_BODY_JSON_DEPTH} levels deep.`, { param });
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined) {
      const messages = checkMessages(parsed, param);
      eachString(messages, (s, path) => parseOrThrow(s, `${param}${path}`));
      return messages;
    }
  }
  parseOrThrow(text, param);
  return [{ role: 'user', content: text }];
}

/** Checks the Mustache syntax of a partial's text (400 naming `param`). */
export function checkPartialText(text: string, param = 'string'): void {
  parseOrThrow(text, param);
}

/**
 * Compiles a template text: parses every string of the messages once, resolves the partials it
 * includes (transitively) and lists the variables it requires. 400 when a partial is unknown or
 * includes itself outside a section (the render would never end).
 */
export function compileTemplate(text: string, resolvePartial: (ref: string) => ResolvedPartial | undefined): CompiledTemplate {
  const messages = templateMessages(text);
  const required = new Set<string>();
  const partialKeys = new Map<string, string>();
  const partialTexts: Record<string, string> = {};
  const walk = (tokens: Tokens, inSection: boolean, stack: string[]): void => {
    for (const t of tokens) {
      const [type, name] = t as unknown as [string, string];
      if ((type === 'name' || type === '&') && !inSection && name !== '.') required.add(name);
      else if (type === '#' || type === '^') walk(t[4] as Tokens, true, stack);
      else if (type === '>') {
        if (stack.includes(name)) {
          if (!inSection)
            throw new GatewayError('invalid_request', `Prompt partial '${name}' includes itself outside a section.`, { param: 'string' });
          continue;
        }
        const p = resolvePartial(name);
        if (!p)
          throw new GatewayError(
            'invalid_request',
            `The template includes the partial '${name}', which does not exist in this workspace.`,
            { param: 'string' },
          );
        partialKeys.set(name, p.key);
        partialTexts[name] = p.text;
        walk(parseMustache(p.text), inSection, [...stack, name]);
      }
    }
  };
  const root = toNode(messages, (tokens) => walk(tokens, false, []));
  return {
    required: [...required],
    partials: partialKeys,
    render(variables) {
      try {
        return renderNode(root, variables, partialTexts) as RenderedMessage[];
      } catch (err) {
        if (err instanceof RangeError)
          throw new GatewayError(
            'invalid_request',
            'The template recursed too deeply: a partial includes itself through a section the variables never end.',
            { param: 'variables' },
          );
        throw err;
      }
    },
  };
}

/** The variables of `required` that `variables` lacks (a dotted name needs every step present). */
export function missingVariables(required: readonly string[], variables: Record<string, unknown>): string[] {
  return required.filter((name) => {
    let cur: unknown = variables;
    for (const part of name.split('.')) {
      if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, part)) return true;
      cur = (cur as Record<string, unknown>)[part];
    }
    return cur === undefined;
  });
}

function checkMessages(value: unknown, param: string): Array<Record<string, unknown>> {
  if (!Array.isArray(value) || value.length === 0)
    throw new GatewayError('invalid_request', `${param} must be a non-empty JSON array of chat messages, or plain text.`, { param });
  value.forEach((m, i) => {
    const where = `${param}[${i}]`;
    if (!isObject(m)) throw new GatewayError('invalid_request', `${where} must be a chat message object.`, { param: where });
    if (typeof m.role !== 'string' || !ROLES.has(m.role))
      throw new GatewayError('invalid_request', `${where}.role must be one of ${[...ROLES].join(', ')}.`, { param: `${where}.role` });
    const c = m.content;
    if (!(
      c === undefined ||
      c === null ||
      typeof c === 'string' ||
      (Array.isArray(c) && c.every((p) => isObject(p) && typeof p.type === 'string'))
    )) {
      throw new GatewayError('invalid_request', `${where}.content must be a string or an array of content parts.`, {
        param: `${where}.content`,
      });
    }
  });
  return value as Array<Record<string, unknown>>;
}

function parseOrThrow(text: string, param: string): Tokens {
  try {
    return parseMustache(text);
  } catch (err) {
    throw new GatewayError('invalid_request', `${param}: invalid Mustache template: ${(err as Error).message}.`, { param });
  }
}

/** Calls `fn` on every templated string (every string value except a message's `role`). */
function eachString(value: unknown, fn: (s: string, path: string) => void, path = '', key = ''): void {
  if (typeof value === 'string') {
    if (key !== 'role' && value.includes('{{')) fn(value, path);
  } else if (Array.isArray(value)) value.forEach((v, i) => eachString(v, fn, `${path}[${i}]`));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) eachString(v, fn, `${path}.${k}`, k);
}

function toNode(value: unknown, onTokens: (t: Tokens) => void, key = ''): Node {
  if (typeof value === 'string' && key !== 'role' && value.includes('{{')) {
    const tokens = parseMustache(value);
    onTokens(tokens);
    return { k: 'tpl', tokens, src: value };
  }
  if (Array.isArray(value)) return { k: 'arr', items: value.map((v) => toNode(v, onTokens)) };
  if (isObject(value)) return { k: 'obj', entries: Object.entries(value).map(([k, v]) => [k, toNode(v, onTokens, k)]) };
  return { k: 'lit', v: value };
}

function renderNode(n: Node, variables: Record<string, unknown>, partials: Record<string, string>): unknown {
  switch (n.k) {
    case 'tpl':
      return renderTokens(n.tokens, n.src, variables, partials);
    case 'arr':
      return n.items.map((i) => renderNode(i, variables, partials));
    case 'obj': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of n.entries) out[k] = renderNode(v, variables, partials);
      return out;
    }
    case 'lit':
      return n.v;
  }
}
