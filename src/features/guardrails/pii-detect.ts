/**
 * PII detectors for default.pii. Each category is a pattern plus, where one exists, a checksum:
 * - EMAIL_ADDRESS: local@domain.tld;
 * - CREDIT_CARD: 13–19 digits (spaces or dashes allowed) passing the Luhn check;
 * - IBAN: country code, check digits and 11–30 alphanumerics (spaces allowed) passing ISO 7064 mod 97;
 * - US_SSN: US Social Security number written AAA-GG-SSSS (invalid area/group/serial ranges excluded);
 * - UK_NINO: UK National Insurance number, e.g. QQ 12 34 56 C (invalid prefixes excluded);
 * - PHONE_NUMBER: 9–15 digits, either starting with `+` or written with separators/parentheses,
 *   or exactly 10 digits; spans already taken by another category are skipped.
 */

export const PII_CATEGORIES = ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'IBAN', 'US_SSN', 'UK_NINO'] as const;
export type PiiCategory = (typeof PII_CATEGORIES)[number];

/** Luhn checksum over a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** ISO 13616 IBAN check (mod 97 = 1) over an IBAN without spaces. */
export function ibanValid(iban: string): boolean {
  const s = iban.toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

interface Detector {
  category: PiiCategory;
  pattern: RegExp;
  accept(match: string): boolean;
  /** Retry without trailing space-separated groups when the whole match is rejected. */
  shorten?: boolean;
}

/** The longest accepted prefix of `m` (cut at spaces when `shorten`), or '' when none is. */
function accepted(det: Detector, m: string): string {
  let candidate = m;
  for (;;) {
    if (det.accept(candidate)) return candidate;
    const cut = candidate.lastIndexOf(' ');
    if (!det.shorten || cut < 0) return '';
    candidate = candidate.slice(0, cut);
  }
}

const digitsOf = (s: string): string => s.replace(/\D/g, '');

const DETECTORS: Detector[] = [
  { category: 'EMAIL_ADDRESS', pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, accept: () => true },
  {
    category: 'IBAN',
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g,
    accept: (m) => ibanValid(m.replace(/ /g, '')),
    shorten: true,
  },
  {
    category: 'CREDIT_CARD',
    pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
    accept: (m) => luhnValid(digitsOf(m)),
  },
  {
    category: 'US_SSN',
    pattern: /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g,
    accept: () => true,
  },
  {
    category: 'UK_NINO',
    pattern: /\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/gi,
    accept: () => true,
  },
  {
    category: 'PHONE_NUMBER',
    pattern: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{1,4}){1,5}(?!\w)/g,
    accept: (m) => {
      const n = digitsOf(m).length;
      if (n < 9 || n > 15) return n === 10;
      return m.startsWith('+') || /[ .()-]/.test(m) || n === 10;
    },
  },
];

/** One detected value. */
export interface PiiMatch {
  category: PiiCategory;
  start: number;
  end: number;
  value: string;
}

/** Non-overlapping PII matches in `text` for `categories`, in text order. */
export function detectPii(text: string, categories: ReadonlySet<PiiCategory>): PiiMatch[] {
  const taken: PiiMatch[] = [];
  for (const det of DETECTORS) {
    if (!categories.has(det.category)) continue;
    for (const m of text.matchAll(det.pattern)) {
      const value = accepted(det, m[0]);
      if (!value) continue;
      const start = m.index;
      const end = start + value.length;
      if (taken.some((t) => start < t.end && end > t.start)) continue;
      taken.push({ category: det.category, start, end, value });
    }
  }
  return taken.sort((a, b) => a.start - b.start);
}

/**
 * Replaces PII with numbered placeholders (`[EMAIL_ADDRESS_1]`). One Redactor keeps its numbering
 * across calls, so the same value gets the same placeholder in every message of a request.
 */
export class Redactor {
  private readonly numbers = new Map<string, string>();
  private readonly counts = new Map<PiiCategory, number>();
  readonly found = new Map<PiiCategory, number>();

  constructor(private readonly categories: ReadonlySet<PiiCategory>) {}

  /** `text` with every match replaced by its placeholder. */
  redact = (text: string): string => {
    const matches = detectPii(text, this.categories);
    let out = '';
    let at = 0;
    for (const m of matches) {
      out += text.slice(at, m.start) + this.placeholder(m);
      at = m.end;
      this.found.set(m.category, (this.found.get(m.category) ?? 0) + 1);
    }
    return out + text.slice(at);
  };

  private placeholder(m: PiiMatch): string {
    const key = `${m.category}\u0000${m.value}`;
    let ph = this.numbers.get(key);
    if (!ph) {
      const n = (this.counts.get(m.category) ?? 0) + 1;
      this.counts.set(m.category, n);
      ph = `[${m.category}_${n}]`;
      this.numbers.set(key, ph);
    }
    return ph;
  }
}
