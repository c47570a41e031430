import { Type, type Static, type TSchema } from 'typebox';
import { MAX_TIMEOUT_MS } from '../foundation/lib/timeouts.js';
import { allProviderSettings } from '../providers/registry.js';
import { StringEnum } from '../foundation/spec/string-enum.js';

/**
 * The config object's structural schema (gateway-spec.md, "Config object"), unknown keys rejected at
 * every level. The any-of key combinations, passthrough exclusivity and conditional target names are
 * checked by `validate-config.ts` after this, with messages that name the JSON path.
 */
const Feedback = Type.Object(
  { value: Type.Optional(Type.Number()), weight: Type.Optional(Type.Number()), metadata: Type.Optional(Type.Object({})) },
  { additionalProperties: false },
);

const HookOutcome = Type.Object(
  { feedback: Type.Optional(Feedback), deny: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

const HookCheck = Type.Object({ id: Type.String({ minLength: 1 }), parameters: Type.Object({}) }, { additionalProperties: false });

const BeforeHook = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    type: Type.Optional(Type.String()),
    async: Type.Optional(Type.Boolean()),
    deny: Type.Optional(Type.Boolean()),
    on_fail: Type.Optional(HookOutcome),
    on_success: Type.Optional(HookOutcome),
    checks: Type.Optional(Type.Array(HookCheck)),
  },
  { additionalProperties: false },
);

const AfterHook = BeforeHook;

/** A guardrail item: a stored guardrail id, or an inline object whose extra keys are check ids with parameter objects. */
const GuardrailItem = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    {
      id: Type.Optional(Type.String()),
      deny: Type.Optional(Type.Boolean()),
      async: Type.Optional(Type.Boolean()),
      on_fail: Type.Optional(HookOutcome),
      on_success: Type.Optional(HookOutcome),
    },
    { additionalProperties: Type.Object({}) },
  ),
]);

const StatusCodes = Type.Array(Type.Integer({ minimum: 100, maximum: 599 }));

export const StrategySchema = Type.Object(
  {
    mode: StringEnum(['single', 'loadbalance', 'fallback', 'conditional']),
    conditions: Type.Optional(Type.Array(Type.Object({ query: Type.Object({}), then: Type.String() }, { additionalProperties: false }))),
    default: Type.Optional(Type.String()),
    on_status_codes: Type.Optional(StatusCodes),
  },
  { additionalProperties: false },
);

export const CacheSchema = Type.Object(
  { mode: StringEnum(['simple', 'semantic']), max_age: Type.Optional(Type.Integer({ minimum: 1 })) },
  { additionalProperties: false },
);

export const RetrySchema = Type.Object(
  {
    attempts: Type.Integer({ minimum: 0, maximum: 5 }),
    on_status_codes: Type.Optional(StatusCodes),
    use_retry_after_headers: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const CircuitBreakerSchema = Type.Object(
  {
    failure_threshold: Type.Number({ minimum: 1 }),
    cooldown_interval: Type.Number({ minimum: 30000, maximum: MAX_TIMEOUT_MS }),
    failure_status_codes: Type.Optional(StatusCodes),
  },
  { additionalProperties: false },
);

/** Every provider's own config keys (merged by the registry), each optional: routing names none of them. */
function providerProperties(): Record<string, TSchema> {
  return Object.fromEntries(Object.entries(allProviderSettings()).map(([key, schema]) => [key, Type.Optional(schema)]));
}

function configProperties(targets: TSchema) {
  return {
    name: Type.Optional(Type.String()),
    strategy: Type.Optional(StrategySchema),
    targets: Type.Optional(Type.Array(targets, { minItems: 1 })),
    provider: Type.Optional(Type.String({ minLength: 1 })),
    api_key: Type.Optional(Type.String()),
    virtual_key: Type.Optional(Type.String({ minLength: 1 })),
    prompt_id: Type.Optional(Type.String({ minLength: 1 })),
    override_params: Type.Optional(Type.Object({})),
    weight: Type.Optional(Type.Number({ minimum: 0 })),
    on_status_codes: Type.Optional(StatusCodes),
    request_timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TIMEOUT_MS })),
    custom_host: Type.Optional(Type.String({ minLength: 1 })),
    forward_headers: Type.Optional(Type.Array(Type.String())),
    passthrough: Type.Optional(Type.Boolean()),
    strict_compat_compliance: Type.Optional(Type.Boolean()),
    cache: Type.Optional(CacheSchema),
    retry: Type.Optional(RetrySchema),
    cb_config: Type.Optional(CircuitBreakerSchema),
    before_request_hooks: Type.Optional(Type.Array(BeforeHook)),
    after_request_hooks: Type.Optional(Type.Array(AfterHook)),
    input_guardrails: Type.Optional(Type.Array(GuardrailItem)),
    output_guardrails: Type.Optional(Type.Array(GuardrailItem)),
    ...providerProperties(),
    Authorization: Type.Optional(Type.String({ pattern: '^Bearer .+' })),
  };
}

/** The recursive config object. */
export const ConfigSchema = Type.Cyclic(
  {
    Config: Type.Object(configProperties(Type.Ref('Config')), { additionalProperties: false }),
  },
  'Config',
);

/** A config object as validated JSON. */
export interface ConfigObject {
  name?: string;
  strategy?: Static<typeof StrategySchema>;
  targets?: ConfigObject[];
  provider?: string;
  api_key?: string;
  virtual_key?: string;
  prompt_id?: string;
  override_params?: Record<string, unknown>;
  weight?: number;
  on_status_codes?: number[];
  request_timeout?: number;
  custom_host?: string;
  forward_headers?: string[];
  passthrough?: boolean;
  strict_compat_compliance?: boolean;
  cache?: Static<typeof CacheSchema>;
  retry?: Static<typeof RetrySchema>;
  cb_config?: Static<typeof CircuitBreakerSchema>;
  before_request_hooks?: Array<Record<string, unknown>>;
  after_request_hooks?: Array<Record<string, unknown>>;
  input_guardrails?: Array<string | Record<string, unknown>>;
  output_guardrails?: Array<string | Record<string, unknown>>;
  [key: string]: unknown;
}

/** The spec's any-of table: a config object must hold every key of at least one row. */
export const REQUIRED_COMBINATIONS: ReadonlyArray<readonly string[]> = [
  ['provider', 'api_key'],
  ['provider', 'custom_host'],
  ['virtual_key'],
  ['strategy', 'targets'],
  ['cache'],
  ['retry'],
  ['prompt_id'],
  ['forward_headers'],
  ['request_timeout'],
  ['provider', 'cloud1_access_key_id', 'cloud1_secret_access_key'],
  ['provider', 'cloud2_region', 'cloud2_service_account_json'],
  ['provider', 'cloud2_region', 'cloud2_project_id'],
  ['provider', 'cloud3_deployment_name', 'cloud3_deployment_type', 'cloud3_region', 'cloud3_api_version'],
  ['provider', 'cloud3_endpoint_name', 'cloud3_deployment_type'],
  ['after_request_hooks'],
  ['before_request_hooks'],
  ['input_guardrails'],
  ['output_guardrails'],
  ['passthrough'],
];
