import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { resolveResourceTarget, type ResourceForwarder, type ResourceTarget } from '../files/provider-resource.js';
import { intQuery, rawQuery } from '../files/query-params.js';
import { checkMetadata } from '../batches/batches-routes.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const tags = ['fine-tuning'];
const Wandb = Type.Object(
  {
    project: Type.String({ minLength: 1 }),
    name: Type.Optional(Nullable(Type.String())),
    entity: Type.Optional(Nullable(Type.String())),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);
const Integration = Type.Object({ type: Type.Literal('wandb'), wandb: Wandb }, { additionalProperties: false });
const MethodObject = Type.Object({ type: StringEnum(['supervised', 'dpo', 'reinforcement']) }, { additionalProperties: true });
const CreateBody = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    training_file: Type.String({ minLength: 1 }),
    suffix: Type.String({ minLength: 1, maxLength: 64 }),
    method: MethodObject,
    validation_file: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    integrations: Type.Optional(Nullable(Type.Array(Integration, { maxItems: 5 }))),
    seed: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2147483647 }))),
    hyperparameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
  },
  { additionalProperties: false },
);
const JobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 128 }) });
const PageQuery = Type.Object({
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ description: 'integer 1..100' })),
});

/**
 * `/v1/fine_tuning/jobs`: create, list, retrieve, cancel, events and checkpoints, forwarded to the
 * provider the request names when it has a fine-tuning API (openai, azure-openai). The gateway checks
 * the create body (model, training_file, suffix, method, at most 5 integrations, metadata) first.
 * @see https://platform.openai.com/docs/api-reference/fine-tuning
 */
export function registerFineTuningRoutes(app: FastifyInstance, deps: GatewayDeps, forwarder: ResourceForwarder): void {
  const target = (request: FastifyRequest): ResourceTarget => {
    const rt = resolveResourceTarget(deps, request.headers, request.gw.workspaceId, 'fine_tuning');
    if (!rt)
      throw new GatewayError(
        'invalid_request',
        'Fine-tuning runs at a provider: send x-gateway-virtual-key (or x-gateway-provider with Authorization, or a config).',
        { param: 'x-gateway-virtual-key' },
      );
    if (!rt.api) throw new GatewayError('invalid_request', `Provider '${rt.adapter.name}' has no fine-tuning API.`, { param: 'provider' });
    return rt;
  };
  const relay = async (reply: FastifyReply, rt: ResourceTarget, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await forwarder.send(rt, {
      method,
      path,
      ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }),
    });
    return reply
      .code(res.status)
      .header('content-type', 'application/json')
      .send(await forwarder.relayText(rt, res));
  };
  const jobPath = (request: FastifyRequest) =>
    `/fine_tuning/jobs/${encodeURIComponent((request.params as Static<typeof JobParams>).job_id)}`;
  const paged = (request: FastifyRequest) => {
    intQuery(request.query as Record<string, unknown>, 'limit', 1, 100, 20);
    return rawQuery(request.url);
  };

  app.post(
    '/v1/fine_tuning/jobs',
    {
      config: { permission: 'completions.write', forwardsBody: true },
      schema: { tags, summary: 'Create a fine-tuning job', body: CreateBody },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateBody>;
      checkMetadata(body.metadata);
      return relay(reply, target(request), 'POST', '/fine_tuning/jobs', body);
    },
  );
  app.get(
    '/v1/fine_tuning/jobs',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'List fine-tuning jobs', querystring: PageQuery } },
    async (request, reply) => {
      return relay(reply, target(request), 'GET', '/fine_tuning/jobs' + paged(request));
    },
  );
  app.get(
    '/v1/fine_tuning/jobs/:job_id',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'Retrieve a fine-tuning job', params: JobParams } },
    async (request, reply) => {
      return relay(reply, target(request), 'GET', jobPath(request));
    },
  );
  app.post(
    '/v1/fine_tuning/jobs/:job_id/cancel',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'Cancel a fine-tuning job', params: JobParams } },
    async (request, reply) => {
      return relay(reply, target(request), 'POST', `${jobPath(request)}/cancel`);
    },
  );
  app.get(
    '/v1/fine_tuning/jobs/:job_id/events',
    {
      config: { permission: 'completions.write' },
      schema: { tags, summary: 'List fine-tuning events', params: JobParams, querystring: PageQuery },
    },
    async (request, reply) => {
      return relay(reply, target(request), 'GET', `${jobPath(request)}/events${paged(request)}`);
    },
  );
  app.get(
    '/v1/fine_tuning/jobs/:job_id/checkpoints',
    {
      config: { permission: 'completions.write' },
      schema: { tags, summary: 'List fine-tuning checkpoints', params: JobParams, querystring: PageQuery },
    },
    async (request, reply) => {
      return relay(reply, target(request), 'GET', `${jobPath(request)}/checkpoints${paged(request)}`);
    },
  );
}
