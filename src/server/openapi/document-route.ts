import type { FastifySchema, RouteOptions } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { ErrorAnswer } from '../../control-plane/resource/mount-resource.js';
import { DATA_PLANE_ANSWERS } from './data-plane-answers.js';
import { operationIdOf } from './operation-id.js';

/** The permission of the routes that call providers on the caller's behalf: they read the gateway's request headers. */
const DATA_PLANE_PERMISSION = 'completions.write';

/**
 * The gateway's request headers, as parameters of every data-plane operation (`x-gateway-api-key` is the
 * document's security scheme, so it is not repeated here).
 */
const GatewayHeaders = Type.Object({
  authorization: Type.Optional(
    Type.String({
      description:
        'With `x-gateway-api-key`: `Bearer <provider key>` for the target. Without it: `Bearer <gateway key>` (also `x-api-key` on `/v1/messages`).',
    }),
  ),
  'x-gateway-config': Type.Optional(Type.String({ description: 'A routing config as JSON, or the id of a stored config.' })),
  'x-gateway-provider': Type.Optional(
    Type.String({ description: 'Provider name or `@slug`; the provider key travels as `Authorization: Bearer`.' }),
  ),
  'x-gateway-virtual-key': Type.Optional(Type.String({ description: 'Id of a stored provider credential.' })),
  'x-gateway-custom-host': Type.Optional(Type.String({ description: 'Base URL of a privately hosted, provider-compatible server.' })),
  'x-gateway-metadata': Type.Optional(
    Type.String({ description: 'JSON object of string values, read by conditional routing, rate-limit conditions, guardrails and logs.' }),
  ),
  'x-gateway-trace-id': Type.Optional(
    Type.String({
      description: 'Trace id (at most 128 characters). When absent: the OpenTelemetry trace id with tracing on, else the request id.',
    }),
  ),
  'x-gateway-span-id': Type.Optional(Type.String({ description: 'Span id, recorded in the request log.' })),
  'x-gateway-parent-span-id': Type.Optional(Type.String({ description: 'Parent span id, recorded in the request log.' })),
  'x-gateway-span-name': Type.Optional(Type.String({ description: 'Span name, recorded in the request log.' })),
  'x-gateway-cache-force-refresh': Type.Optional(Type.String({ description: '`true` skips the cache read and stores the fresh answer.' })),
  'x-gateway-request-timeout': Type.Optional(Type.String({ description: 'Milliseconds; the same as config `request_timeout`.' })),
  'x-gateway-forward-headers': Type.Optional(
    Type.String({ description: 'Comma-separated header names forwarded to the provider; the same as config `forward_headers`.' }),
  ),
});

/** The routing headers of a data-plane answer. */
const ANSWER_HEADERS = {
  'x-gateway-request-id': { type: 'string', description: 'Id of this request.' },
  'x-gateway-trace-id': {
    type: 'string',
    description: "The trace id: the request's own, the OpenTelemetry trace's, or (untraced, none given) the request id.",
  },
  'x-gateway-provider': { type: 'string', description: 'The provider that answered.' },
  'x-gateway-last-used-option-index': { type: 'string', description: 'Path of the target that answered, e.g. `config.targets[1]`.' },
  'x-gateway-retry-attempt-count': { type: 'string', description: 'Retries made on the target that answered.' },
  'x-gateway-cache-status': { type: 'string', description: '`HIT`, `SEMANTIC HIT`, `MISS`, `REFRESH` or `DISABLED`.' },
};

/** The Messages API's error body: the gateway's error fields with Anthropic's top-level `"type": "error"`. */
const MessagesErrorAnswer = Type.Object(
  { type: Type.Literal('error'), error: ErrorAnswer.properties.error },
  { additionalProperties: true },
);

const OpenAnswer = Type.Object({}, { additionalProperties: true });

function answerOf(key: string, fallback: TSchema | undefined): Record<string, unknown> {
  const known = DATA_PLANE_ANSWERS[key];
  const schema = known?.schema ?? fallback ?? OpenAnswer;
  const described = (schema as { description?: unknown }).description;
  const description = typeof described === 'string' ? described : 'The answer.';
  const content: Record<string, unknown> = { 'application/json': { schema } };
  if (known?.streams)
    content['text/event-stream'] = { schema: { type: 'string', description: 'Server-sent events, when the body sets `stream: true`.' } };
  return { description, headers: ANSWER_HEADERS, content };
}

/**
 * The `@fastify/swagger` transform: one place that completes every route's documentation without
 * touching how it runs. Data-plane routes (permission `completions.write`) gain the gateway's request
 * headers as parameters, their answer schema (JSON, and SSE where they stream) with the routing headers,
 * and the error shape for `4xx`/`5xx` (with `"type": "error"` on the Messages routes). Other routes keep
 * what they declare (admin resources: `201` on create, the error shape). Every route gets a stable
 * `operationId` derived from its method and path (`operationIdOf`) unless it declares one.
 */
export function documentRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): {
  schema: FastifySchema;
  url: string;
} {
  if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  schema = { operationId: operationIdOf(methods[0]!, route.url), ...schema };
  const key = `${methods[0]} ${route.url}`;
  const errors = url.startsWith('/v1/messages') ? MessagesErrorAnswer : ErrorAnswer;
  const declared = schema.response as Record<string, TSchema> | undefined;
  const dataPlane = (route.config as { permission?: string } | undefined)?.permission === DATA_PLANE_PERMISSION;
  if (!dataPlane) return { schema, url };
  const ok = declared ? Object.keys(declared).find((s) => s.startsWith('2')) : undefined;
  const response = { ...(declared ?? {}), [ok ?? '200']: answerOf(key, ok ? declared![ok] : undefined), '4xx': errors, '5xx': errors };
  const headers = schema.headers ? schema.headers : GatewayHeaders;
  return { schema: { ...schema, headers, response }, url };
}
