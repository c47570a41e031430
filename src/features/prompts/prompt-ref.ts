import { GatewayError } from '../../foundation/errors/gateway-error.js';

/** Which version a reference selects: the published one, the latest one, or a number. */
export type VersionSelector = 'published' | 'latest' | number;

/** A prompt or partial reference: `<id or slug>`, `<id or slug>@latest` or `<id or slug>@<version>`. */
export interface PromptRef {
  ref: string;
  version: VersionSelector;
}

/**
 * Parses a reference. No suffix selects the published version (spec, Versioning item 2). A suffix
 * other than `latest` or a positive integer is a 400 naming `param`.
 */
export function parsePromptRef(text: string, param = 'promptId'): PromptRef {
  const at = text.lastIndexOf('@');
  if (at < 0) return { ref: text, version: 'published' };
  const ref = text.slice(0, at);
  const suffix = text.slice(at + 1);
  if (ref.length === 0) throw new GatewayError('invalid_request', `'${text}' names no prompt before '@'.`, { param });
  if (suffix === 'latest') return { ref, version: 'latest' };
  if (/^[1-9][0-9]{0,8}$/.test(suffix)) return { ref, version: Number(suffix) };
  throw new GatewayError('invalid_request', `'${text}': the version after '@' must be 'latest' or a positive integer.`, { param });
}

/** The version number a selector picks for a prompt (which may not exist for a number). */
export function selectVersion(p: { published_version: number; latest_version: number }, v: VersionSelector): number {
  return v === 'published' ? p.published_version : v === 'latest' ? p.latest_version : v;
}
