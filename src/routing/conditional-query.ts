import { isObject } from '../foundation/lib/json.js';
import { RegexError, compileSafeRegex, testSafeRegex } from '../foundation/lib/safe-regex.js';

/** What a conditional query can read: `metadata.<key>`, `params.<body field>`, `url.pathname`. */
export interface QueryContext {
  metadata: Record<string, unknown>;
  params: Record<string, unknown>;
  url: { pathname: string };
}

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex', '$exists']);

/**
 * Evaluates a MongoDB-style query (decisions.md, "Config semantics"): field paths such as
 * `metadata.plan` or `params.model`, operators `$eq $ne $gt $gte $lt $lte $in $nin $regex $exists`,
 * combined with `$and` / `$or`. A bare value means `$eq`. Several keys in one object all must hold.
 * `$regex` runs on RE2 with a time budget (foundation/lib/safe-regex.ts); a value it cannot test (too long,
 * budget spent) does not match.
 */
export async function matchesQuery(query: Record<string, unknown>, ctx: QueryContext): Promise<boolean> {
  for (const [key, cond] of Object.entries(query)) {
    if (key === '$and') {
      if (!Array.isArray(cond)) return false;
      for (const q of cond) if (!isObject(q) || !(await matchesQuery(q, ctx))) return false;
    } else if (key === '$or') {
      if (!Array.isArray(cond)) return false;
      let any = false;
      for (const q of cond) {
        if (isObject(q) && (await matchesQuery(q, ctx))) {
          any = true;
          break;
        }
      }
      if (!any) return false;
    } else if (!(await matchesField(lookup(ctx, key), cond))) {
      return false;
    }
  }
  return true;
}

/** Checks a query's operators are known (config validation). Returns the first problem or undefined. */
export function queryProblem(query: Record<string, unknown>): string | undefined {
  for (const [key, cond] of Object.entries(query)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(cond)) return `${key} needs an array`;
      for (const q of cond) {
        if (!isObject(q)) return `${key} items must be objects`;
        const p = queryProblem(q);
        if (p) return p;
      }
    } else if (key.startsWith('$')) {
      return `unknown operator ${key}`;
    } else if (isObject(cond)) {
      for (const [op, v] of Object.entries(cond)) {
        if (!OPERATORS.has(op)) return `unknown operator ${op} on ${key}`;
        if ((op === '$in' || op === '$nin') && !Array.isArray(v)) return `${op} on ${key} needs an array`;
        if (op === '$regex') {
          if (typeof v !== 'string') return `$regex on ${key} needs a string`;
          try {
            compileSafeRegex(v);
          } catch (err) {
            if (!(err instanceof RegexError)) throw err;
            return `$regex on ${key} ${err.message}`;
          }
        }
      }
    }
  }
  return undefined;
}

function lookup(ctx: QueryContext, path: string): unknown {
  let cur: unknown = ctx;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

async function matchesField(value: unknown, cond: unknown): Promise<boolean> {
  if (!isObject(cond)) return equals(value, cond);
  for (const [op, arg] of Object.entries(cond)) {
    switch (op) {
      case '$eq':
        if (!equals(value, arg)) return false;
        break;
      case '$ne':
        if (equals(value, arg)) return false;
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (!compare(value, arg, op)) return false;
        break;
      case '$in':
        if (!Array.isArray(arg) || !arg.some((a) => equals(value, a))) return false;
        break;
      case '$nin':
        if (!Array.isArray(arg) || arg.some((a) => equals(value, a))) return false;
        break;
      case '$regex': {
        if (typeof arg !== 'string' || value === undefined || value === null) return false;
        // Validated and cached when the config was compiled: this is a lookup, not a compilation.
        if (!(await testSafeRegex(compileSafeRegex(arg), String(value)).catch(() => false))) return false;
        break;
      }
      case '$exists':
        if ((value !== undefined) !== Boolean(arg)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Metadata values are strings: let `{"$eq": 5}` match "5".
  if ((typeof a === 'number' && typeof b === 'string') || (typeof a === 'string' && typeof b === 'number')) return String(a) === String(b);
  return false;
}

function compare(a: unknown, b: unknown, op: '$gt' | '$gte' | '$lt' | '$lte'): boolean {
  const x = typeof a === 'string' && typeof b === 'number' ? Number(a) : a;
  if (typeof x !== typeof b || (typeof x !== 'number' && typeof x !== 'string')) return false;
  const l = x as number | string;
  const r = b as number | string;
  if (op === '$gt') return l > r;
  if (op === '$gte') return l >= r;
  if (op === '$lt') return l < r;
  return l <= r;
}
