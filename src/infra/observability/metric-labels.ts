/**
 * Bounded Prometheus label values. Every label fed from request or provider data goes through here,
 * so no client can grow the metric set: values are cleaned (control characters stripped, length
 * capped), models are named only once a provider has answered with them, and each metric has a hard
 * series cap beyond which new series are recorded under `other`.
 */

/** The value standing for everything not kept as its own label value. */
export const OTHER = 'other';

/** Longest label value kept (characters). */
export const MAX_LABEL_LENGTH = 64;

/** Most distinct model names kept as label values per process; later ones are `other`. */
export const MAX_KNOWN_MODELS = 50;

// C0 and C1 control characters, DEL, and the Unicode line/paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// What a model name looks like across providers: `gpt-4o-2024-08-06`, `models/gemini-1.5-pro`,
// `anthropic.claude-3-5-sonnet-20240620-v1:0`, `@cf/meta/llama-3-8b-instruct`.
const MODEL_NAME = /^[A-Za-z0-9@][A-Za-z0-9._:/@+-]{0,63}$/;

/** A label value: control characters removed, at most MAX_LABEL_LENGTH characters, never empty. */
export function cleanLabel(value: string): string {
  const v = value.replace(CONTROL, '').slice(0, MAX_LABEL_LENGTH);
  return v.length > 0 ? v : OTHER;
}

/** An HTTP status as a label: `100`–`599`, else `other`. */
export function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : OTHER;
}

/**
 * The models the gateway has seen answered by a provider (a 2xx answer naming the model), that look
 * like a model name, up to MAX_KNOWN_MODELS. Any other name a request carries is labelled `other`.
 */
export class KnownModels {
  private readonly known = new Set<string>();

  constructor(private readonly max = MAX_KNOWN_MODELS) {}

  /** Remembers a model a provider answered with (ignored when malformed or when the set is full). */
  learn(model: string): void {
    if (this.known.size < this.max && !this.known.has(model) && MODEL_NAME.test(model)) this.known.add(model);
  }

  /** The model's label: itself when known, else `other`. */
  label(model: string | undefined): string {
    return model !== undefined && this.known.has(model) ? model : OTHER;
  }
}

/**
 * The series a metric may have: label sets already seen pass unchanged; a new one passes while fewer
 * than `max` exist; beyond that it is recorded with every label `other` (one overflow series).
 */
export class SeriesCap<L extends string> {
  private readonly seen = new Set<string>();
  private readonly overflow: Record<L, string>;
  /**
   * The answer already given for a raw label set, as a tree of maps: one level per label name, keyed by
   * the raw value (no key string is built per lookup, and two sets can never be confused). An answer
   * never changes: a series once admitted stays, and the cap is never lowered. At most 4 × `max`
   * answers, so raw values sent by clients cannot grow it; beyond that, answers are computed each time.
   */
  private readonly answers = new Map<string, unknown>();
  private remembered = 0;

  constructor(
    private readonly names: readonly L[],
    private readonly max: number,
  ) {
    this.overflow = Object.fromEntries(names.map((n) => [n, OTHER])) as Record<L, string>;
  }

  /**
   * The labels to record `labels` under (values cleaned). A label set seen before costs one map lookup
   * per label and returns the same object every time (the hot path allocates nothing).
   */
  admit(labels: Record<L, string>): Record<L, string> {
    const names = this.names;
    if (names.length === 0) return this.overflow;
    let node: unknown = this.answers;
    for (let i = 0; i < names.length; i++) {
      node = (node as Map<string, unknown>).get(labels[names[i]!]);
      if (node === undefined) return this.remember(labels);
    }
    return node as Record<L, string>;
  }

  private remember(labels: Record<L, string>): Record<L, string> {
    const answer = this.compute(labels);
    if (this.remembered >= this.max * 4 || this.names.length === 0) return answer;
    const names = this.names;
    let node = this.answers;
    for (let i = 0; i < names.length - 1; i++) {
      const v = labels[names[i]!];
      let next = node.get(v) as Map<string, unknown> | undefined;
      if (next === undefined) node.set(v, (next = new Map()));
      node = next;
    }
    node.set(labels[names[names.length - 1]!], answer);
    this.remembered++;
    return answer;
  }

  private compute(labels: Record<L, string>): Record<L, string> {
    const clean = {} as Record<L, string>;
    let id = '';
    for (const n of this.names) {
      const v = cleanLabel(labels[n]);
      clean[n] = v;
      id += v + '\u0000';
    }
    if (this.seen.has(id)) return clean;
    if (this.seen.size >= this.max) return this.overflow;
    this.seen.add(id);
    return clean;
  }
}
