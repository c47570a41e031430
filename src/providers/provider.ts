import type { ProviderSettings } from './provider-settings.js';
import type { Readable } from 'node:stream';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../foundation/spec/chat.js';
import type { CompletionRequest, TextCompletion } from '../foundation/spec/completions.js';
import type { EmbeddingsRequest, EmbeddingsResponse } from '../foundation/spec/embeddings.js';
import type { ModelInfo } from '../foundation/spec/models.js';
import type { ImageGenerationRequest, ImagesResponse } from '../foundation/spec/images.js';
import type { ModerationRequest, ModerationResponse } from '../foundation/spec/moderations.js';
import type { RerankRequest, RerankResponse } from '../foundation/spec/rerank.js';
import type { ResponseObject, ResponseStreamEvent, ResponsesRequest } from '../foundation/spec/responses.js';
import type { MessagesCountTokensResponse, MessagesRequest, MessagesResponse, MessagesStreamEvent } from '../foundation/spec/messages.js';
import type { GatewayError } from '../foundation/errors/gateway-error.js';
import type { HttpClient } from '../foundation/lib/http-client.js';
import type { Clock } from '../foundation/lib/clock.js';

/**
 * The settings of one resolved target (a leaf of the config tree, with inherited values applied)
 * that a provider reads to build its call.
 */
export interface ProviderTarget {
  /** Registry name, e.g. `openai`, `anthropic`, `bedrock`. */
  provider: string;
  /** Provider credential (config `api_key`, or the `Authorization: Bearer` of a provider-compatible client). */
  apiKey?: string;
  /** Base URL replacing the provider's default (config `custom_host` or `x-gateway-custom-host`). */
  customHost?: string;
  /**
   * The leaf's whole config object, for provider-specific keys (`cloud1_*`, `cloud2_*`, `cloud3_*`,
   * `resource_name`, `deployment_id`, `api_version`, `deployments`, `compat_organization`, ...).
   */
  config: Readonly<Record<string, unknown>>;
  /** Incoming headers the config asks to forward unchanged (`forward_headers`), lower-cased names. */
  forwardHeaders: Readonly<Record<string, string>>;
}

/** What a provider may use while building a call and mapping its answer. */
export interface CallContext {
  target: ProviderTarget;
  /** True when the client asked for a stream. */
  stream: boolean;
  /** Aborted when the client goes away or the request times out. */
  signal: AbortSignal;
  /** The gateway's HTTP client (token exchanges and other side calls go through it). */
  http: HttpClient;
  clock: Clock;
  /**
   * The client's own JSON text of `body` when `body` is the request body as the client sent it (the
   * routing engine's RouteInput.sourceText): sent as it is, it spares serialising `body` again.
   * Undefined for any other object.
   */
  sourceText?(body: object): string | undefined;
}

/** The native request a provider wants sent. */
export interface UpstreamCall {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  body?: string | Uint8Array | Readable;
}

/**
 * Turns a provider's native stream body into common-schema chunks, incrementally.
 * One instance per response.
 */
export interface StreamMapper<Chunk> {
  /** Feeds body bytes in any split; returns the chunks they complete. Throws a GatewayError on an error event. */
  push(bytes: Uint8Array): Chunk[];
  /**
   * The upstream body ended. Returns the last chunks; throws a GatewayError when the stream ended
   * without the provider's terminal event (an upstream that died mid-stream).
   */
  end(): Chunk[];
}

/** One endpoint of one provider: request mapping, response mapping, stream mapping. */
export interface EndpointAdapter<Req, Res, Chunk = never> {
  /**
   * True when the provider speaks the common schema for this endpoint: the gateway can pass the
   * answer's bytes through unchanged (decisions.md, "Passthrough").
   */
  nativeSchema?: boolean;
  /** Builds the native call, including auth headers and signatures. */
  buildRequest(req: Req, ctx: CallContext): UpstreamCall | Promise<UpstreamCall>;
  /** Maps a successful (2xx) non-streamed answer, already parsed from JSON. */
  mapResponse(body: unknown, req: Req, ctx: CallContext): Res;
  /** Creates the mapper for a streamed answer; absent when the endpoint cannot stream. */
  createStreamMapper?(req: Req, ctx: CallContext): StreamMapper<Chunk>;
  /**
   * For a `nativeSchema` endpoint whose stream carries the schema's events in another framing (Bedrock's
   * binary event-stream around Anthropic events): turns the upstream bytes into the client's stream bytes,
   * each event's payload unchanged. `end()` throws when the stream ended before its terminal event.
   * Absent: the upstream bytes pass through as they are.
   */
  createStreamTranscoder?(req: Req, ctx: CallContext): StreamMapper<Uint8Array>;
  /**
   * True when `buildRequest` asks the provider for a usage chunk on every stream (OpenAI's
   * `stream_options.include_usage`) even when the client did not: the gateway then drops that chunk
   * from the client's stream (after usage accounting has seen it).
   */
  addsStreamUsage?: boolean;
  /**
   * Whether this endpoint serves `model` natively; absent means every model. A route goes to a native
   * endpoint (`messages`) only when every target it can reach serves its model.
   */
  servesModel?(model: string | undefined): boolean;
}

/** Request, response and chunk types of each endpoint kind a provider can serve. */
export interface EndpointTypes {
  chat: { req: ChatCompletionRequest; res: ChatCompletion; chunk: ChatCompletionChunk };
  completions: { req: CompletionRequest; res: TextCompletion; chunk: TextCompletion };
  embeddings: { req: EmbeddingsRequest; res: EmbeddingsResponse; chunk: never };
  images: { req: ImageGenerationRequest; res: ImagesResponse; chunk: never };
  moderations: { req: ModerationRequest; res: ModerationResponse; chunk: never };
  rerank: { req: RerankRequest; res: RerankResponse; chunk: never };
  responses: { req: ResponsesRequest; res: ResponseObject; chunk: ResponseStreamEvent };
  /** The Anthropic Messages API, served natively (byte-exact) by providers that speak it. */
  messages: { req: MessagesRequest; res: MessagesResponse; chunk: MessagesStreamEvent };
  /** Token counting of a Messages API body, served natively by providers that speak it. */
  messages_count_tokens: { req: MessagesRequest; res: MessagesCountTokensResponse; chunk: never };
}

export type ProviderEndpointKind = keyof EndpointTypes;

export type ProviderEndpoints = {
  [K in ProviderEndpointKind]?: EndpointAdapter<EndpointTypes[K]['req'], EndpointTypes[K]['res'], EndpointTypes[K]['chunk']>;
};

/** Kinds of OpenAI-shaped provider resources the gateway forwards as they are. */
export type ProviderResourceKind = 'files' | 'batches' | 'fine_tuning';

/**
 * A provider's resource APIs (files, batches, fine-tuning jobs) that the gateway forwards unchanged:
 * only the URL and auth differ between hosts.
 * @see https://platform.openai.com/docs/api-reference/files
 */
export interface ProviderResourceApi {
  /** The resource kinds this provider serves. */
  readonly kinds: readonly ProviderResourceKind[];
  /**
   * URL and headers (auth, organisation, forwarded headers; no content type) of a call to `path`, a path
   * below the API root with its query, e.g. `/files/file-abc/content` or `/batches?limit=2`.
   */
  buildCall(path: string, ctx: CallContext): Promise<{ url: string; headers: Record<string, string> }>;
}

/**
 * The narrow interface every provider implements. A provider is one folder under `providers/`
 * exporting one ProviderAdapter, registered in `providers/registry.ts`.
 */
export interface ProviderAdapter {
  /** Registry name. */
  readonly name: string;
  /** The endpoints this provider serves. */
  readonly endpoints: ProviderEndpoints;
  /**
   * Maps a non-2xx answer to the error shape, keeping the provider's status.
   * `body` is the raw answer text (may be empty or not JSON).
   */
  mapError(status: number, body: string, headers: Record<string, string | string[] | undefined>): GatewayError;
  /** Lists the models reachable with this target (GET /v1/models). */
  listModels?(ctx: CallContext): Promise<ModelInfo[]>;
  /** Files, batches and fine-tuning APIs forwarded as they are (absent when the provider has none). */
  readonly resources?: ProviderResourceApi;
  /**
   * Origins of the provider's fixed default URLs (built from no user field, e.g. `https://api.openai.com`).
   * The HTTP client connects to them without the outbound address check; any other URL is checked.
   */
  readonly fixedOrigins?: readonly string[];
  /** The config keys this provider reads (absent: none of its own); the registry merges them into the config schema. */
  readonly settings?: ProviderSettings;
}
