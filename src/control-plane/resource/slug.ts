import { Type } from 'typebox';
import { uuid } from '../../lib/ids.js';

/** A slug: lower-case letters, digits, `-` and `_`, starting with a letter or digit, at most 128. */
export const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,127}$' });

/** A unique-enough slug made from a name (or `fallback` when the name has no usable characters) and 8 random characters. */
export function slugify(name: string, fallback: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || fallback;
  return `${base}-${uuid().slice(0, 8)}`;
}
