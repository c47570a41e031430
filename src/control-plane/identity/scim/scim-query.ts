import { parse, type Filter } from 'scim2-parse-filter';
import type { ScimFilter } from '../../../infra/store/repos/scim.js';
import { ScimError, invalidValue } from './scim-error.js';

const FILTERABLE: Record<string, ScimFilter['attribute']> = {
  username: 'userName',
  externalid: 'externalId',
  displayname: 'displayName',
  id: 'id',
};
/** The most resources one list answers (ServiceProviderConfig `filter.maxResults`). */
export const MAX_RESULTS = 200;

/**
 * Reads a list `filter` (parsed by scim2-parse-filter): only `<attribute> eq "<value>"` with
 * `userName`, `externalId`, `displayName` or `id` (attribute names and the operator in any case);
 * anything else is 400 `invalidFilter`. Undefined without a filter.
 */
export function readFilter(text: unknown): ScimFilter | undefined {
  if (text === undefined || text === '') return undefined;
  if (typeof text !== 'string') throw new ScimError(400, 'filter must be a string.', 'invalidFilter');
  let f: Filter;
  try {
    f = parse(text);
  } catch (err) {
    throw new ScimError(400, `The filter '${text}' does not parse: ${(err as Error).message}`, 'invalidFilter');
  }
  const attribute =
    'attrPath' in f && typeof f.attrPath === 'string'
      ? FILTERABLE[f.attrPath.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '').toLowerCase()]
      : undefined;
  if (f.op.toLowerCase() !== 'eq' || attribute === undefined || !('compValue' in f) || typeof f.compValue !== 'string') {
    throw new ScimError(
      400,
      `Unsupported filter '${text}': only userName, externalId, displayName or id with eq and a string value.`,
      'invalidFilter',
    );
  }
  return { attribute, value: f.compValue };
}

function integer(name: string, value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n)) throw invalidValue(`${name} must be an integer.`);
  return n;
}

/** `startIndex` (1-based; below 1 counts as 1) and `count` (0 to {@link MAX_RESULTS}, default that) as a page. */
export function readPage(query: Record<string, unknown>): { startIndex: number; limit: number; offset: number } {
  const startIndex = Math.max(1, integer('startIndex', query.startIndex) ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, integer('count', query.count) ?? MAX_RESULTS));
  return { startIndex, limit: count, offset: startIndex - 1 };
}

/** The SCIM list answer. */
export function listResponse(resources: unknown[], total: number, startIndex: number) {
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** `attributes` / `excludedAttributes` name `members` (Entra reads groups without their members). */
export function excludesMembers(query: Record<string, unknown>): boolean {
  const ex = typeof query.excludedAttributes === 'string' ? query.excludedAttributes : '';
  return ex.split(',').some((a) => a.trim().toLowerCase() === 'members');
}
