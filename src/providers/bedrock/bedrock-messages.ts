import type { MessagesRequest, MessagesResponse, MessagesStreamEvent } from '../../foundation/spec/messages.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import type { CallContext, EndpointAdapter, StreamMapper, UpstreamCall } from '../provider.js';
import { bedrockModelUrl, readBedrockAuth, signBedrockRequest } from './bedrock-auth.js';
import { isAnthropic, requireModel } from './bedrock-chat.js';
import { mapBedrockStreamException } from './bedrock-error.js';
import { EventStreamDecoder, type EventStreamMessage } from './bedrock-event-stream.js';

const PROVIDER = 'bedrock';

/** The `anthropic_version` Anthropic models on Bedrock require in the body. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** Client headers of the Messages API that Bedrock does not take as headers (the beta list goes into the body). */
const CLIENT_VERSION_HEADERS = new Set(['anthropic-version', 'anthropic-beta']);

/**
 * The InvokeModel body of an Anthropic model: the Messages body without `model` (it is in the path) and
 * `stream` (the operation says it), with `anthropic_version: bedrock-2023-05-31` (whatever the body said)
 * and the client's `anthropic-beta` header as `anthropic_beta`.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html
 */
export function buildBedrockAnthropicBody(req: MessagesRequest, beta: string | undefined): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = req;
  const body: Record<string, unknown> = { ...rest, anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  const betas =
    beta
      ?.split(',')
      .map((b) => b.trim())
      .filter(Boolean) ?? [];
  if (betas.length) body.anthropic_beta = betas;
  return body;
}

async function buildInvokeCall(req: MessagesRequest, ctx: CallContext): Promise<UpstreamCall> {
  const model = requireModel(req.model);
  const auth = readBedrockAuth(ctx.target);
  const body = JSON.stringify(buildBedrockAnthropicBody(req, ctx.target.forwardHeaders['anthropic-beta']));
  const url = bedrockModelUrl(ctx.target, auth.region, model, ctx.stream ? 'invoke-with-response-stream' : 'invoke');
  const forwarded: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.target.forwardHeaders)) if (!CLIENT_VERSION_HEADERS.has(k)) forwarded[k] = v;
  const accept = ctx.stream ? 'application/vnd.amazon.eventstream' : 'application/json';
  const headers = await signBedrockRequest(auth, url, body, accept, forwarded, new Date(ctx.clock.now()));
  return { url, method: 'POST', headers, body };
}

/**
 * Reads InvokeModelWithResponseStream messages: each `chunk` event carries `{"bytes": <base64>}`, the
 * bytes being one Anthropic stream event as JSON; an exception message throws with its status, after
 * the events that arrived before it in the same bytes were returned; so does an Anthropic `error` event.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 */
/** One Anthropic event of the stream: its type, its exact bytes and its parsed value. */
interface ChunkEvent {
  type: string;
  json: Buffer;
  event: MessagesStreamEvent;
}

function createChunkReader(): { push(bytes: Uint8Array): ChunkEvent[]; end(): void } {
  const decoder = new EventStreamDecoder(PROVIDER);
  let stopped = false;
  let failure: GatewayError | undefined;
  const read = (msg: EventStreamMessage): ChunkEvent[] => {
    const kind = msg.headers[':message-type'];
    if (kind === 'exception') throw mapBedrockStreamException(msg.headers[':exception-type'] ?? 'internalServerException', msg.body);
    if (kind === 'error') {
      throw new GatewayError('provider_error', msg.headers[':error-message'] || 'Bedrock reported a stream error.', {
        provider: PROVIDER,
        status: 502,
        publicCode: msg.headers[':error-code'] ?? null,
      });
    }
    if (msg.headers[':event-type'] !== 'chunk') return [];
    const payload = tryParseJson(msg.body);
    if (!isObject(payload) || typeof payload.bytes !== 'string') return [];
    const json = Buffer.from(payload.bytes, 'base64');
    const event = tryParseJson(json.toString('utf8'));
    if (!isObject(event) || typeof event.type !== 'string' || /[\r\n]/.test(event.type)) {
      throw new GatewayError('provider_error', 'Bedrock sent a stream chunk that is not an Anthropic event.', {
        provider: PROVIDER,
        status: 502,
      });
    }
    if (event.type === 'error') {
      const error = isObject(event.error) ? event.error : {};
      throw new GatewayError('provider_error', typeof error.message === 'string' ? error.message : 'The model reported a stream error.', {
        provider: PROVIDER,
        status: 502,
        publicCode: typeof error.type === 'string' ? error.type : null,
      });
    }
    if (event.type === 'message_stop') stopped = true;
    return [{ type: event.type, json, event: event as unknown as MessagesStreamEvent }];
  };
  return {
    push(bytes) {
      if (failure) throw failure;
      const out: ChunkEvent[] = [];
      try {
        for (const msg of decoder.push(bytes)) out.push(...read(msg));
      } catch (err) {
        if (out.length === 0 || !(err instanceof GatewayError)) throw err;
        failure = err;
      }
      return out;
    },
    end() {
      if (failure) throw failure;
      if (!stopped)
        throw new GatewayError('provider_error', 'The provider stream ended before message_stop.', { status: 502, provider: PROVIDER });
    },
  };
}

/**
 * The client's Messages stream from Bedrock's event-stream: one `event: <type>` + `data: <bytes>` frame
 * per chunk, the data being the chunk's decoded bytes unchanged (an event whose JSON holds a line break
 * is re-serialised on one line, as SSE needs).
 */
function createTranscoder(): StreamMapper<Uint8Array> {
  const reader = createChunkReader();
  return {
    push: (bytes) =>
      reader.push(bytes).map(({ type, json, event }) => {
        const data = json.includes(0x0a) || json.includes(0x0d) ? Buffer.from(JSON.stringify(event)) : json;
        return Buffer.concat([Buffer.from(`event: ${type}\ndata: `), data, Buffer.from('\n\n')]);
      }),
    end() {
      reader.end();
      return [];
    },
  };
}

/** The same stream as event objects (used when answers cannot pass through: `strict_compat_compliance`). */
function createEventMapper(): StreamMapper<MessagesStreamEvent> {
  const reader = createChunkReader();
  return {
    push: (bytes) => reader.push(bytes).map(({ event }) => event),
    end() {
      reader.end();
      return [];
    },
  };
}

/**
 * The Messages API on Bedrock for Anthropic models, in Bedrock's native Anthropic format: InvokeModel
 * (`/model/{id}/invoke`, the answer is an Anthropic message, passed through) and
 * InvokeModelWithResponseStream (`/invoke-with-response-stream`, event-stream frames whose chunks are
 * Anthropic events, re-framed as the Messages API's SSE). Other Bedrock models go through Converse.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 */
export const bedrockMessagesEndpoint: EndpointAdapter<MessagesRequest, MessagesResponse, MessagesStreamEvent> = {
  nativeSchema: true,
  servesModel: (model) => typeof model === 'string' && isAnthropic(model),
  buildRequest: buildInvokeCall,
  mapResponse: (body) => body as MessagesResponse,
  createStreamMapper: () => createEventMapper(),
  createStreamTranscoder: () => createTranscoder(),
};
