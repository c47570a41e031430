/**
 * Nesting depth of parsed JSON, measured without recursion (a value nested thousands of levels deep
 * must not overflow the stack of the code that checks it).
 */

/**
 * How deep a request body's JSON may nest objects and arrays: far beyond what any model API or SCIM client
 * sends (OpenAI's structured outputs allow 10 levels of schema nesting), far below what would overflow the
 * stack of the code that walks a body. Every JSON body parser of the gateway refuses deeper text.
 */
export const MAX_BODY_JSON_DEPTH = 1000;

/** One step of a JSON path: an object key or an array index. */
export type JsonPathStep = string | number;

/**
 * The path to the first object or array nested more than `max` levels deep in `value` (the value
 * itself is level 1), or undefined when none is.
 */
export function tooDeepPath(value: unknown, max: number): JsonPathStep[] | undefined {
  interface Frame {
    value: unknown;
    depth: number;
    parent: Frame | null;
    step: JsonPathStep | null;
  }
  const stack: Frame[] = [{ value, depth: 1, parent: null, step: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v !== 'object' || v === null) continue;
    if (frame.depth > max) {
      const path: JsonPathStep[] = [];
      for (let f: Frame | null = frame; f && f.step !== null; f = f.parent) path.unshift(f.step);
      return path;
    }
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, depth: frame.depth + 1, parent: frame, step: i }));
    else for (const [k, item] of Object.entries(v)) stack.push({ value: item, depth: frame.depth + 1, parent: frame, step: k });
  }
  return undefined;
}

/**
 * Whether the JSON text `text` nests objects and arrays more than `max` levels deep, read from the text
 * (brackets outside strings) before it is parsed. Text shorter than `2 * (max + 1)` characters cannot
 * (each level takes an opening and a closing bracket) and is not scanned. Strings are skipped with
 * `indexOf`, so the loop visits only the structural characters between them. Malformed text answers
 * what its brackets say; parsing it refuses it anyway.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length < 2 * (max + 1)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: the next quote not escaped by an odd run of backslashes.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return false;
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
