import type { McpToolFilter } from '../../infra/store/repos/mcp.js';

/** Whether a server's filter lets a tool through: in `allow` when it is set, and never in `deny`. */
export function toolAllowed(filter: McpToolFilter, name: string): boolean {
  if (filter.allow && !filter.allow.includes(name)) return false;
  return !filter.deny?.includes(name);
}

/**
 * Filters a `tools/list` result down to the allowed tools. Two upstream tools of one name are a
 * collision the gateway refuses (which of them a call reaches would be the upstream's choice, not the
 * filter's): the name is returned as `collision` and nothing is listed.
 */
export function filterToolList(
  filter: McpToolFilter,
  result: Record<string, unknown>,
): { result: Record<string, unknown>; collision?: string } {
  const tools = Array.isArray(result.tools) ? (result.tools as Array<Record<string, unknown>>) : [];
  const seen = new Set<string>();
  for (const t of tools) {
    const name = String(t?.name);
    if (seen.has(name)) return { result, collision: name };
    seen.add(name);
  }
  return { result: { ...result, tools: tools.filter((t) => toolAllowed(filter, String(t?.name))) } };
}
