import { Type, type TNull, type TSchema, type TUnion } from 'typebox';

/** `schema` or `null` (an `anyOf` of the two): a field the API answers or accepts as null when it has no value. */
export function Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
  return Type.Union([schema, Type.Null()]);
}
