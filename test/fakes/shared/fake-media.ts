import { createHash } from 'node:crypto';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Deterministic fake image bytes: the PNG signature followed by `fake:<prompt>#<i>` (tests read the prompt back). */
export function fakeImage(prompt: string, i: number): Buffer {
  return Buffer.concat([PNG_SIGNATURE, Buffer.from(`fake:${prompt}#${i}`, 'utf8')]);
}

/** The prompt and index a {@link fakeImage} carries, or undefined for other bytes. */
export function readFakeImage(bytes: Buffer): { prompt: string; index: number } | undefined {
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  const m = /^fake:([\s\S]*)#(\d+)$/.exec(bytes.subarray(8).toString('utf8'));
  return m ? { prompt: m[1]!, index: Number(m[2]) } : undefined;
}

/**
 * Deterministic relevance: the share of the query's words found in each document, rounded to 3
 * decimals, plus a tiny index-based tie breaker so scores are distinct. Returned in document order.
 */
export function fakeRelevance(query: string, documents: string[]): number[] {
  const words = new Set(query.toLowerCase().split(/\W+/).filter(Boolean));
  return documents.map((d, index) => {
    const overlap = new Set(
      String(d)
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => words.has(w)),
    ).size;
    return Math.round((overlap / (words.size || 1)) * 1000) / 1000 + (documents.length - index) * 1e-6;
  });
}

/** A short stable id from some text. */
export function fakeId(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
