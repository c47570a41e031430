import type {
  DirectCaller,
  Message,
  MessageDeltaUsage,
  RawContentBlockStartEvent,
  RawMessageDeltaEvent,
  RawMessageStartEvent,
  TextBlock,
  ToolUseBlock,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';

/** The members of T that are not optional (they may still be nullable): the API always sends them. */
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/**
 * A list of member names that tsc proves equal to the required members of T: a member the SDK adds
 * (or drops) fails the type check until the list follows, so the runtime check is derived from the SDK's types.
 */
function requiredOf<T>() {
  return <const K extends readonly RequiredKeys<T>[]>(
    keys: K & (Exclude<RequiredKeys<T>, K[number]> extends never ? unknown : { missing: Exclude<RequiredKeys<T>, K[number]> }),
  ): readonly string[] => keys as unknown as readonly string[];
}

/** The required members of the `@anthropic-ai/sdk` types a translated answer must carry. */
export const REQUIRED = {
  Message: requiredOf<Message>()([
    'id',
    'container',
    'content',
    'diagnostics',
    'model',
    'role',
    'stop_details',
    'stop_reason',
    'stop_sequence',
    'type',
    'usage',
  ]),
  Usage: requiredOf<Usage>()([
    'cache_creation',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
    'inference_geo',
    'input_tokens',
    'output_tokens',
    'output_tokens_details',
    'server_tool_use',
    'service_tier',
    'speed',
  ]),
  TextBlock: requiredOf<TextBlock>()(['citations', 'text', 'type']),
  ToolUseBlock: requiredOf<ToolUseBlock>()(['id', 'caller', 'input', 'name', 'type']),
  DirectCaller: requiredOf<DirectCaller>()(['type']),
  RawMessageStartEvent: requiredOf<RawMessageStartEvent>()(['message', 'type']),
  RawContentBlockStartEvent: requiredOf<RawContentBlockStartEvent>()(['content_block', 'index', 'type']),
  RawMessageDeltaEvent: requiredOf<RawMessageDeltaEvent>()(['delta', 'type', 'usage']),
  MessageDeltaUsage: requiredOf<MessageDeltaUsage>()([
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
    'input_tokens',
    'output_tokens',
    'output_tokens_details',
    'server_tool_use',
  ]),
  RawMessageDelta: requiredOf<RawMessageDeltaEvent.Delta>()(['container', 'stop_details', 'stop_reason', 'stop_sequence']),
};

/** The required members `value` lacks, as `Type.member` strings. */
export function missing(type: keyof typeof REQUIRED, value: unknown): string[] {
  const obj = (value ?? {}) as Record<string, unknown>;
  return REQUIRED[type].filter((k) => !(k in obj)).map((k) => `${type}.${k}`);
}

/** Every required member a message (and its blocks and usage) lacks. */
export function missingInMessage(m: Record<string, unknown>): string[] {
  const out = [...missing('Message', m), ...missing('Usage', m.usage)];
  for (const b of (m.content as Array<Record<string, unknown>>) ?? []) {
    if (b.type === 'text') out.push(...missing('TextBlock', b));
    if (b.type === 'tool_use') out.push(...missing('ToolUseBlock', b), ...missing('DirectCaller', b.caller));
  }
  return out;
}

/** Every required member the events of a stream lack. */
export function missingInEvents(events: Array<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type === 'message_start')
      out.push(...missing('RawMessageStartEvent', e), ...missingInMessage(e.message as Record<string, unknown>));
    if (e.type === 'content_block_start') {
      out.push(...missing('RawContentBlockStartEvent', e));
      const b = e.content_block as Record<string, unknown>;
      if (b.type === 'text') out.push(...missing('TextBlock', b));
      if (b.type === 'tool_use') out.push(...missing('ToolUseBlock', b), ...missing('DirectCaller', b.caller));
    }
    if (e.type === 'message_delta')
      out.push(...missing('RawMessageDeltaEvent', e), ...missing('MessageDeltaUsage', e.usage), ...missing('RawMessageDelta', e.delta));
  }
  return out;
}
