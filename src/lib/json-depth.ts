/**
 * Nesting depth of parsed JSON, measured without recursion (a value nested thousands of levels deep
 * must not overflow the stack of the code that checks it).
 */

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
