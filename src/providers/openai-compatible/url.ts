/** Joins a base URL and a path with exactly one slash between them. */
export function joinUrl(base: string, path: string): string {
  const b = base.endsWith('/') ? base.slice(0, -1) : base;
  return path.startsWith('/') ? b + path : `${b}/${path}`;
}
