/**
 * The one way user-supplied regular expressions (conditional routing `$regex`, guardrail patterns,
 * `pattern` / `patternProperties` in jsonSchema guardrail schemas) are compiled and run. Patterns are checked when the config or guardrail is validated: at most
 * MAX_PATTERN_LENGTH characters, valid JavaScript syntax, flags among `i m s` (`g y d u` are
 * accepted and ignored), no backreferences or lookaround (RE2 has neither), counted repetitions up
 * to MAX_REPEAT each. Matching runs on RE2 (linear time, no backtracking) in a worker thread with a
 * time budget (regex-worker.ts), on subjects of at most MAX_SUBJECT_LENGTH characters.
 */
import { RegexWorkerHost, type RegexMatch } from './regex-worker.js';

export type { RegexMatch } from './regex-worker.js';

/** Longest accepted pattern, in characters. */
export const MAX_PATTERN_LENGTH = 1_000;
/** Longest text a pattern is tested against, in characters; a longer one is not tested (RegexError). */
export const MAX_SUBJECT_LENGTH = 1_000_000;
/** Largest count of one counted repetition (`{n}`, `{n,m}`, `{n,}`); also RE2's own limit. */
export const MAX_REPEAT = 1_000;
/** Time a match may take, end to end (queueing in the worker included), unless the caller says otherwise. */
export const DEFAULT_MATCH_BUDGET_MS = 1_000;

/** A pattern was refused, or a match could not be completed (timeout, subject too long). */
export class RegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegexError';
  }
}

/** A validated pattern. Compile with `compileSafeRegex`; match with `matchSafeRegex`. */
export interface SafeRegex {
  readonly source: string;
  /** Normalised flags: a subset of `ims`, in that order. */
  readonly flags: string;
  /** `/source/flags`, as a RegExp prints. */
  toString(): string;
}

const host = new RegexWorkerHost();
const compiled = new Map<string, SafeRegex>();
const COMPILED_MAX = 2_000;

/**
 * Validates `pattern` with `flags` and returns it ready to match; the same pattern and flags return
 * the same object (cached, so configs compiled again do no work). The worker compiles it in the
 * background. Throws RegexError saying what is wrong.
 */
export function compileSafeRegex(pattern: string, flags = ''): SafeRegex {
  const norm = normaliseFlags(flags);
  const key = `${norm}/${pattern}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  if (pattern.length > MAX_PATTERN_LENGTH) throw new RegexError(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  checkSyntax(pattern, norm);
  const problem = unsupportedFeature(pattern);
  if (problem) throw new RegexError(problem);
  const re: SafeRegex = { source: pattern, flags: norm, toString: () => `/${pattern}/${norm}` };
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, re);
  host.prepare(pattern, norm);
  return re;
}

/** Splits a `/pattern/flags` literal; undefined when `rule` is not one. */
export function parseRegexLiteral(rule: string): { pattern: string; flags: string } | undefined {
  const lit = /^\/(.+)\/([a-z]*)$/s.exec(rule);
  return lit ? { pattern: lit[1]!, flags: lit[2]! } : undefined;
}

/**
 * The first match of `re` in `subject`, or null. Rejects with RegexError when the subject is longer
 * than MAX_SUBJECT_LENGTH, when RE2 refuses the pattern, or when `budgetMs` elapses first.
 */
export async function matchSafeRegex(
  re: SafeRegex,
  subject: string,
  budgetMs: number = DEFAULT_MATCH_BUDGET_MS,
): Promise<RegexMatch | null> {
  if (subject.length > MAX_SUBJECT_LENGTH)
    throw new RegexError(`the text is longer than ${MAX_SUBJECT_LENGTH} characters and was not tested`);
  try {
    return await host.match(re.source, re.flags, subject, budgetMs);
  } catch (err) {
    throw new RegexError((err as Error).message);
  }
}

/**
 * Whether `re` matches somewhere in each of `subjects`, in one worker job with one budget. Rejects
 * with RegexError when the subjects together are longer than MAX_SUBJECT_LENGTH, when RE2 refuses
 * the pattern, or when `budgetMs` elapses first.
 */
export async function testEachSafeRegex(
  re: SafeRegex,
  subjects: readonly string[],
  budgetMs: number = DEFAULT_MATCH_BUDGET_MS,
): Promise<boolean[]> {
  let total = 0;
  for (const s of subjects) total += s.length;
  if (total > MAX_SUBJECT_LENGTH)
    throw new RegexError(`the texts are longer than ${MAX_SUBJECT_LENGTH} characters together and were not tested`);
  try {
    return await host.testEach(re.source, re.flags, subjects, budgetMs);
  } catch (err) {
    throw new RegexError((err as Error).message);
  }
}

/** Whether `re` matches somewhere in `subject` (see `matchSafeRegex` for the failures). */
export async function testSafeRegex(re: SafeRegex, subject: string, budgetMs?: number): Promise<boolean> {
  return (await matchSafeRegex(re, subject, budgetMs)) !== null;
}

/** Stops the regex worker (tests, shutdown); it is started again on the next match. */
export function stopRegexWorker(): Promise<void> {
  return host.close();
}

function normaliseFlags(flags: string): string {
  for (const f of flags) {
    if (!'gimsuyd'.includes(f)) throw new RegexError(`has an unsupported flag '${f}' (supported: i, m, s)`);
  }
  return ['i', 'm', 's'].filter((f) => flags.includes(f)).join('');
}

/** JavaScript syntax, with or without the `u` flag (RE2 always works on code points). */
function checkSyntax(pattern: string, flags: string): void {
  try {
    new RegExp(pattern, flags);
  } catch (err) {
    try {
      new RegExp(pattern, `${flags}u`);
    } catch {
      throw new RegexError(`is not a valid regular expression (${(err as Error).message})`);
    }
  }
}

/** The first construct RE2 cannot run: backreferences, lookaround, a repetition count above MAX_REPEAT. */
export function unsupportedFeature(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return 'uses a backreference, which is not supported';
      if (!inClass && next === 'k' && pattern[i + 2] === '<') return 'uses a named backreference, which is not supported';
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
    } else if (c === '(' && /^\(\?(?:=|!|<=|<!)/.test(pattern.slice(i, i + 4))) {
      return 'uses lookahead or lookbehind, which is not supported';
    } else if (c === '{') {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (m && Math.max(Number(m[1]), Number(m[2] || 0)) > MAX_REPEAT) return `repeats more than ${MAX_REPEAT} times`;
    }
  }
  return undefined;
}
