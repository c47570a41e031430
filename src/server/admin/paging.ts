import { Type } from 'typebox';

/** Query members of administrative lists (decisions.md: `current_page`, `page_size`, answer has `total`). */
export const PageQuery = {
  current_page: Type.Optional(Type.Integer({ minimum: 0 })),
  page_size: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
};

/** Limit and offset of a page; page size defaults to 50; page 0 is the first page. */
export function pageOf(q: { current_page?: number; page_size?: number }): { limit: number; offset: number } {
  const size = q.page_size === undefined || q.page_size === 0 ? 50 : q.page_size;
  return { limit: size, offset: (q.current_page ?? 0) * size };
}

/** ISO 8601 text of a millisecond time (null stays null). */
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
