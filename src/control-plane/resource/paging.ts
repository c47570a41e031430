import { Type, type TSchema } from 'typebox';
import { Nullable } from '../../spec/nullable.js';

/** Query members of every admin list (control-plane.md: `current_page` from 0, `page_size` 1–100, default 50). */
export const PageQuery = {
  current_page: Type.Optional(Type.Integer({ minimum: 0 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
};

/** Limit and offset of a page. */
export function pageOf(q: { current_page?: number; page_size?: number }): { limit: number; offset: number } {
  const size = q.page_size ?? 50;
  return { limit: size, offset: (q.current_page ?? 0) * size };
}

/** The answer schema of a list of `item`: `{object: "list", data, total}`. */
export function ListAnswer<T extends TSchema>(item: T) {
  return Type.Object({ object: Type.Literal('list'), data: Type.Array(item), total: Type.Integer() });
}

/** ISO 8601 text of a millisecond time (null stays null). */
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/** Schema of an ISO time or null. */
export const IsoTime = Nullable(Type.String());
