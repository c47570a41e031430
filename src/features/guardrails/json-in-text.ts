/**
 * Finds JSON values in free text, for the jsonSchema and jsonKeys checks: the whole text when it is
 * JSON, else fenced code blocks (```json …```), else balanced `{…}` / `[…]` spans. At most
 * MAX_CANDIDATES values are returned, in order of appearance.
 */
import { tryParseJson } from '../../foundation/lib/json.js';

const MAX_CANDIDATES = 20;

/** JSON objects and arrays found in `text` (see the module comment). */
export function findJsonValues(text: string): unknown[] {
  const whole = tryParseJson(text.trim());
  if (whole !== undefined && typeof whole === 'object' && whole !== null) return [whole];
  const out: unknown[] = [];
  for (const m of text.matchAll(/```[\w-]*[ \t]*\r?\n([\s\S]*?)```/g)) {
    const v = tryParseJson(m[1].trim());
    if (typeof v === 'object' && v !== null) out.push(v);
    if (out.length >= MAX_CANDIDATES) return out;
  }
  if (out.length) return out;
  let i = 0;
  while (i < text.length && out.length < MAX_CANDIDATES) {
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      const end = matchingClose(text, i);
      if (end > 0) {
        const v = tryParseJson(text.slice(i, end + 1));
        if (v !== undefined) {
          out.push(v);
          i = end + 1;
          continue;
        }
      }
    }
    i++;
  }
  return out;
}

/** Index of the bracket closing the one at `start`, honouring JSON strings; -1 when unbalanced. */
function matchingClose(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}
