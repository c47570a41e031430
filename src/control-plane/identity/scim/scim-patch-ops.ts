import type { ScimPatchOperation, ScimResource } from 'scim-patch';
import { ScimError, invalidSyntax } from './scim-error.js';

/** The PatchOp message schema (RFC 7644 §3.5.2). */
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * Applies a PATCH body to a resource's current representation with `scim-patch` and answers the
 * patched copy. Accepts what Okta and Microsoft Entra send: op names in any case (`Replace`), a
 * `members[value eq "<id>"]` remove path, a remove of `members` with a `value` list, a path-less
 * replace whose value holds attribute paths. A malformed body is 400 `invalidSyntax`; a path the
 * resource does not have is 400 `invalidPath` (`noTarget` for a filter matching nothing). `scim-patch` is loaded
 * by the first PATCH, not with the gateway.
 */
export async function applyPatch(current: object, body: unknown): Promise<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidSyntax('A PATCH body is a PatchOp message object.');
  const raw = (body as Record<string, unknown>).Operations ?? (body as Record<string, unknown>).operations;
  if (!Array.isArray(raw) || raw.length === 0) throw invalidSyntax('A PATCH body needs a non-empty Operations array.');
  const ops: ScimPatchOperation[] = raw.map((o, i) => {
    if (typeof o !== 'object' || o === null) throw invalidSyntax(`Operations[${i}] must be an object.`);
    const op = (o as Record<string, unknown>).op;
    if (typeof op !== 'string' || !['add', 'remove', 'replace'].includes(op.toLowerCase()))
      throw invalidSyntax(`Operations[${i}].op must be add, remove or replace.`);
    const path = (o as Record<string, unknown>).path;
    if (path !== undefined && typeof path !== 'string') throw invalidSyntax(`Operations[${i}].path must be a string.`);
    return { ...(o as object), op: op.toLowerCase() } as ScimPatchOperation;
  });
  const { scimPatch } = await import('scim-patch');
  try {
    return scimPatch(structuredClone(current) as ScimResource, ops, { mutateDocument: true, treatMissingAsAdd: true }) as unknown as Record<
      string,
      unknown
    >;
  } catch (err) {
    const name = (err as Error).constructor?.name ?? '';
    const detail = `PATCH refused: ${(err as Error).message}`;
    if (name === 'NoTarget') throw new ScimError(400, detail, 'noTarget');
    if (name === 'InvalidScimPatchOp' || name === 'NoPathInScimPatchOp') throw new ScimError(400, detail, 'invalidPath');
    throw invalidSyntax(detail);
  }
}
