import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const RELATIVE = '../shared/vendor-specs/openai-openapi.json';

/**
 * Where OpenAI's published OpenAPI document is: `../shared/vendor-specs/openai-openapi.json` beside the
 * clone (for a git worktree, beside its main checkout too), or `OPENAI_OPENAPI_JSON`. Undefined when absent.
 */
export function openAIDocumentPath(): string | undefined {
  const candidates = [process.env.OPENAI_OPENAPI_JSON, join(ROOT, RELATIVE)];
  const dotGit = join(ROOT, '.git');
  if (existsSync(dotGit) && statSync(dotGit).isFile()) {
    const gitdir = /gitdir:\s*(.+)/.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    if (gitdir) candidates.push(join(resolve(gitdir, '../../..'), RELATIVE));
  }
  return candidates.find((p): p is string => p !== undefined && existsSync(p));
}

/** The one line a clone without the document says. */
export const MISSING_DOCUMENT = `OpenAI's OpenAPI document is not at ${RELATIVE} beside the clone (nor at OPENAI_OPENAPI_JSON): the official-schema checks cannot run`;

/**
 * Rewrites OpenAPI 3.0 leftovers into JSON Schema: `nullable: true` becomes a `null` type (or an
 * `anyOf` with `{type: "null"}` around a `$ref`/composition), `null` joins an `enum`; `discriminator`
 * (a hint, not a constraint) is dropped.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'discriminator' || k === 'nullable' || k === 'example' || k === 'examples') continue;
    out[k] =
      k === 'properties' || k === '$defs' || k === 'schemas'
        ? Object.fromEntries(Object.entries(v as object).map(([n, s]) => [n, toJsonSchema(s)]))
        : toJsonSchema(v);
  }
  if ((node as { nullable?: unknown }).nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
    return out;
  }
  const { description, ...rest } = out;
  return { description, anyOf: [rest, { type: 'null' }] };
}

/** Validators of `components.schemas` of OpenAI's published OpenAPI document. */
export class OpenAISchemas {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly schemas: Record<
    string,
    { anyOf?: Array<{ $ref?: string }>; oneOf?: Array<{ $ref?: string }>; properties?: { type?: { enum?: unknown[] } } }
  >;

  constructor(path: string) {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { components: { schemas: OpenAISchemas['schemas'] } };
    this.schemas = doc.components.schemas;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    this.ajv.addSchema({ $id: 'openai', components: { schemas: toJsonSchema(doc.components.schemas) } });
  }

  /** The member of union schema `union` (e.g. `ResponseStreamEvent`) whose `type` is `type`. */
  memberOf(union: string, type: string): string {
    const u = this.schemas[union];
    for (const ref of [...(u?.anyOf ?? []), ...(u?.oneOf ?? [])]) {
      const name = ref.$ref?.split('/').pop();
      if (name && this.schemas[name]?.properties?.type?.enum?.includes(type)) return name;
    }
    throw new Error(`no member of ${union} has type ${type}`);
  }

  /** The errors of `value` against schema `name` (empty when it validates), one readable line each. */
  errors(name: string, value: unknown): string[] {
    let validate = this.cache.get(name);
    if (!validate) {
      validate = this.ajv.getSchema(`openai#/components/schemas/${name}`);
      if (!validate) throw new Error(`no schema ${name} in the OpenAPI document`);
      this.cache.set(name, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${name}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }
}
