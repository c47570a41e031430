import { Type, type TSchemaOptions, type TUnsafe } from 'typebox';

/**
 * A string that is one of `values`, as one `enum` keyword. A union of literals is an `anyOf` of `const`s:
 * Ajv tries them in turn and builds an error object for each one a valid value does not match (a chat
 * message's role tried `system` and `developer` before `user`: 742 against 67 ns for eleven messages),
 * and a failure names the first literal only; an `enum` is checked without building anything and a
 * failure lists the allowed values.
 */
export function StringEnum<const T extends string>(values: readonly T[], options?: TSchemaOptions): TUnsafe<T> {
  return Type.Unsafe<T>({ ...options, type: 'string', enum: [...values] });
}
