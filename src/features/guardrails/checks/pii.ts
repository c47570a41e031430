/**
 * default.pii {categories (default all), redact (default false)}: detects PII (see pii-detect.ts for
 * the categories: EMAIL_ADDRESS, PHONE_NUMBER, CREDIT_CARD, IBAN, US_SSN, UK_NINO) and fails when
 * any is found. With `redact: true` it is a mutator: `transformed` carries the text and the body with
 * placeholders such as [EMAIL_ADDRESS_1], and the verdict stays false so the hook result records it
 * (callers apply the transform when the item does not deny).
 * Before the request it reads every text piece of the request body (all messages, not only the
 * last); after it, the response body's texts (or the response text when there is no body).
 * `data` lists categories and counts, never the values.
 */
import { BOTH_PHASES, defineCheck, type CheckTransform } from '../check.js';
import { ParamReader } from '../params.js';
import { PII_CATEGORIES, Redactor, type PiiCategory } from '../pii-detect.js';
import { mapRequestTexts, mapResponseTexts } from '../text-of.js';

const ALIASES: Record<string, PiiCategory[]> = {
  email: ['EMAIL_ADDRESS'],
  emails: ['EMAIL_ADDRESS'],
  email_address: ['EMAIL_ADDRESS'],
  phone: ['PHONE_NUMBER'],
  phones: ['PHONE_NUMBER'],
  phone_number: ['PHONE_NUMBER'],
  phone_numbers: ['PHONE_NUMBER'],
  card: ['CREDIT_CARD'],
  cards: ['CREDIT_CARD'],
  credit_card: ['CREDIT_CARD'],
  card_number: ['CREDIT_CARD'],
  card_numbers: ['CREDIT_CARD'],
  iban: ['IBAN'],
  ibans: ['IBAN'],
  ssn: ['US_SSN'],
  us_ssn: ['US_SSN'],
  nino: ['UK_NINO'],
  uk_nino: ['UK_NINO'],
  national_id: ['US_SSN', 'UK_NINO'],
  national_ids: ['US_SSN', 'UK_NINO'],
};

/** Resolves a category name (canonical, any case, or an alias such as `emails`); undefined if unknown. */
export function resolveCategory(name: string): PiiCategory[] | undefined {
  const upper = name.toUpperCase() as PiiCategory;
  if (PII_CATEGORIES.includes(upper)) return [upper];
  return ALIASES[name.toLowerCase()];
}

export const pii = defineCheck({
  id: 'default.pii',
  phases: BOTH_PHASES,
  reads: 'text',
  mutator: true,
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const categories = new Set<PiiCategory>();
    if (p.has('categories')) {
      p.stringArray('categories').forEach((c, i) => {
        const resolved = resolveCategory(c);
        if (!resolved) p.fail(`categories[${i}]`, `unknown category "${c}"; use ${PII_CATEGORIES.join(', ')}`);
        resolved.forEach((r) => categories.add(r));
      });
    } else {
      PII_CATEGORIES.forEach((c) => categories.add(c));
    }
    return { categories, redact: p.bool('redact', false) };
  },
  evaluate(input, { categories, redact }) {
    const r = new Redactor(categories);
    const transformed: CheckTransform = {};
    // The text is derived from the body: count the body's findings, the text's only without a body finding.
    let fromBody: Map<PiiCategory, number>;
    if (input.eventType === 'beforeRequestHook') {
      transformed.requestBody = mapRequestTexts(input.request.body, r.redact);
      fromBody = new Map(r.found);
      transformed.requestText = r.redact(input.requestText);
    } else {
      if (input.response?.body !== undefined) transformed.responseBody = mapResponseTexts(input.response.body, r.redact);
      fromBody = new Map(r.found);
      transformed.responseText = r.redact(input.responseText ?? '');
    }
    const counts = fromBody.size > 0 ? fromBody : r.found;
    const detected = [...counts.entries()].map(([category, count]) => ({ category, count }));
    const verdict = detected.length === 0;
    return {
      verdict,
      explanation: verdict ? 'No PII found.' : `PII found: ${detected.map((d) => d.category).join(', ')}${redact ? ' (redacted)' : ''}.`,
      data: { detected, redacted: redact && !verdict },
      transformed: redact && !verdict ? transformed : undefined,
    };
  },
});
