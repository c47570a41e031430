import { Type } from 'typebox';
import { uuid } from '../../foundation/lib/ids.js';

/** A slug: lower-case letters, digits, `-` and `_`, starting with a letter or digit, at most 128. */
export const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,127}$' });

/** A name in kebab case (at most 100 characters), or `fallback` when the name has no usable characters. */
export function kebabSlug(name: string, fallback: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 100) || fallback
  );
}

/** A unique-enough slug made from a name (or `fallback` when the name has no usable characters) and 8 random characters. */
export function slugify(name: string, fallback: string): string {
  return `${kebabSlug(name, fallback)}-${uuid().slice(0, 8)}`;
}
