import { Type } from 'typebox';
import { uuid } from '../../../foundation/lib/ids.js';
import { AGENT_SERVERS_SECTION } from '../../../features/agents/agent-servers-section.js';
import {
  deleteAgentServer,
  getAgentServer,
  insertAgentServer,
  listAgentServers,
  updateAgentServer,
  type AgentServer,
} from '../../../infra/store/repos/agent-servers.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Slug, kebabSlug } from '../../resource/slug.js';
import { checkCustomHost } from '../integrations/integration-input.js';
import { sealHeaders } from '../../../foundation/lib/sealed-values.js';
import { HeaderSecretMappings, checkHeaderMappings } from '../secret-references/header-secret-mappings.js';
import { checkHeaders, checkSkills, headerNameProblem } from './agent-server-input.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const Url = Type.String({ minLength: 1, maxLength: 2048 });
const Headers = Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 8192 }), { maxProperties: 50 });
const SkillId = Type.String({ minLength: 1, maxLength: 256 });
const Skills = Type.Object({ allow: Type.Optional(Nullable(Type.Array(SkillId, { maxItems: 500 }))) }, { additionalProperties: false });

const CreateAgentServer = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    url: Url,
    headers: Type.Optional(Headers),
    secret_mappings: Type.Optional(HeaderSecretMappings),
    skills: Type.Optional(Skills),
    workspace_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const UpdateAgentServer = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    url: Type.Optional(Url),
    headers: Type.Optional(Headers),
    secret_mappings: Type.Optional(HeaderSecretMappings),
    skills: Type.Optional(Skills),
  },
  { additionalProperties: false, minProperties: 1 },
);
const AgentServerAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('agent_server'),
  name: Type.String(),
  slug: Type.String(),
  url: Type.String(),
  headers: Type.Record(Type.String(), Type.String(), { description: 'Header name → masked hint of its value (values are write-only).' }),
  secret_mappings: HeaderSecretMappings,
  skills: Type.Object({ allow: Nullable(Type.Array(Type.String())) }),
  workspace_id: Type.String(),
  organisation_id: Type.String(),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});

/** The public view: header values only by their hints. */
function present(a: AgentServer) {
  return {
    id: a.id,
    object: 'agent_server' as const,
    name: a.name,
    slug: a.slug,
    url: a.url,
    headers: a.header_hints,
    secret_mappings: a.secret_mappings,
    skills: { allow: a.skills_allow },
    workspace_id: a.workspace_id,
    organisation_id: a.organisation_id,
    created_at: iso(a.created_at),
    last_updated_at: iso(a.updated_at),
  };
}

/** The URL, checked by the custom-host guard (400 naming `url`). */
async function checkUrl(ctx: ResourceContext, url: string): Promise<void> {
  await checkCustomHost(ctx.deps.http.outbound, url, 'url');
}

/**
 * `/v1/agent-servers`: the A2A agents a workspace publishes through the gateway (control-plane.md
 * §10). `url` is the agent's JSON-RPC endpoint (its card is read below it, see
 * `agent-card-route.ts`) and passes the custom-host guard; `headers` are sent with every call to it,
 * sealed at rest and shown only by their hints; `skills.allow` narrows the skills callers may use.
 * `secret_mappings` fill headers from secret references (shared with the workspace) at call time,
 * overriding a static header of the same name. Callers reach it at `/v1/agents/{slug}` (the agents
 * capability, which reads the snapshot section every write here reloads).
 */
export const agentServersResource = defineResource({
  name: 'agent_server',
  paths: ['/v1/agent-servers'],
  tag: 'agent servers',
  noun: { one: 'an agent server', many: 'agent servers' },
  permissions: { read: 'agent_servers.read', write: 'agent_servers.write' },
  runtimeSections: [AGENT_SERVERS_SECTION],
  schemas: { create: CreateAgentServer, update: UpdateAgentServer, listQuery: Type.Object({}), answer: AgentServerAnswer },
  removal: 'delete',
  unique: { param: 'slug', message: 'An agent server with this slug already exists in this workspace.' },
  repo: {
    get: getAgentServer,
    list: (db, scope, _query, page) => listAgentServers(db, scope, page),
    remove: (db, scope, a) => deleteAgentServer(db, scope, a),
  },
  idOf: (a) => a.id,
  workspaceOf: (a) => a.workspace_id,
  present,
  async create(ctx, body) {
    await checkUrl(ctx, body.url);
    if (body.headers) checkHeaders(body.headers);
    if (body.skills?.allow) checkSkills(body.skills.allow);
    const mappings = await checkHeaderMappings(ctx, body.secret_mappings ?? [], headerNameProblem, ctx.workspaceId);
    const id = uuid();
    const { sealed, hints } = sealHeaders(ctx.deps.secrets, id, body.headers ?? {}, { lowerCase: true });
    const record: AgentServer = {
      id,
      organisation_id: ctx.scope.organisationId,
      workspace_id: ctx.workspaceId,
      name: body.name,
      slug: body.slug ?? `${kebabSlug(body.name, 'agent').slice(0, 119)}-${uuid().slice(0, 8)}`,
      url: body.url,
      headers_sealed: sealed,
      header_hints: hints,
      skills_allow: body.skills?.allow ?? null,
      secret_mappings: mappings,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertAgentServer(ctx.db, ctx.scope, record);
    return {
      record,
      details: {
        name: record.name,
        slug: record.slug,
        headers: Object.keys(hints),
        secret_mappings: mappings,
        skills_allow: record.skills_allow,
      },
    };
  },
  async update(ctx, a, body) {
    if (body.url !== undefined) await checkUrl(ctx, body.url);
    if (body.headers) checkHeaders(body.headers);
    if (body.skills?.allow) checkSkills(body.skills.allow);
    const mappings = body.secret_mappings && (await checkHeaderMappings(ctx, body.secret_mappings, headerNameProblem, a.workspace_id));
    const next: AgentServer = { ...a, updated_at: ctx.now };
    if (body.name !== undefined) next.name = body.name;
    if (body.url !== undefined) next.url = body.url;
    if (body.headers !== undefined) {
      const { sealed, hints } = sealHeaders(ctx.deps.secrets, a.id, body.headers, { lowerCase: true });
      next.headers_sealed = sealed;
      next.header_hints = hints;
    }
    if (mappings) next.secret_mappings = mappings;
    if (body.skills !== undefined) next.skills_allow = body.skills.allow ?? null;
    await updateAgentServer(ctx.db, ctx.scope, next, ctx.now);
    return { record: next, details: { changed: Object.keys(body), ...(mappings ? { secret_mappings: mappings } : {}) } };
  },
});
