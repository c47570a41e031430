import { Type, type TSchema } from 'typebox';
import { Nullable } from '../foundation/spec/nullable.js';

/**
 * The latest time a timestamp parameter may name, in Unix seconds: JavaScript's last date
 * (+275760-09-13), whose milliseconds still fit PostgreSQL's bigint. A larger value is 400 on every
 * store instead of a bigint overflow (500) on PostgreSQL.
 */
export const MAX_UNIX_SECONDS = 8_640_000_000_000;

/** A time parameter: Unix seconds (0 to `MAX_UNIX_SECONDS`) or an ISO 8601 date-time. The integer comes first, so a number out of range is refused with "must be <= ...". */
export const UnixOrIsoTime = Type.Union([Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS }), Type.String({ format: 'date-time' })]);

/** The last page a list may ask for: its offset (`current_page * page_size`) stays an exact integer that every store accepts. */
export const MAX_PAGE = 1_000_000_000;

/** Query members of every admin list (control-plane.md: `current_page` from 0, `page_size` 1–100, default 50). */
export const PageQuery = {
  current_page: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PAGE })),
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
