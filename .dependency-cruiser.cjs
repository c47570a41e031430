/**
 * The dependency rules of docs/architecture.md, checked by `npm run depcheck` (part of `npm test`).
 *
 * Layers, lowest first; a folder imports only from its own layer or the ones below it:
 *   foundation   spec, errors, lib
 *   kernel       contracts only (principal, permissions, tenant scope, runtime change)
 *   providers    one adapter per provider, reached from outside only through provider.ts and registry.ts
 *   infra        state, store, observability, pricing, secrets
 *   routing      config, strategy walk, retry, circuit breaker
 *   runtime      the compiled snapshot the hot path reads
 *   gateway      what the composition root hands every route and capability (deps, settings, hooks)
 *   data-plane   the request pipeline every data-plane route runs through
 *   capabilities cache, guardrails, prompts, limits, files, batches, responses, messages, images, fine-tuning, agents, mcp
 *   control-plane admin resources (may use a capability's validation)
 *   server       the Fastify app and composition root; imported by main.ts only
 *
 * Tests (`*.test.ts`, `test/`) may import across layers; they may not form cycles either.
 */

const CAPABILITIES = ['cache', 'guardrails', 'prompts', 'limits', 'files', 'batches', 'responses', 'messages', 'images', 'fine-tuning', 'agents', 'mcp'];
const folders = (names) => `^src/(${names.join('|')})/`;
const TESTS = ['\\.test\\.ts$', '^test/'];

/** A rule that lets the folders `from` import only `allowed` (their own folder included). */
function only(name, from, allowed, comment) {
  return {
    name,
    severity: 'error',
    comment,
    from: { path: folders(from), pathNot: TESTS },
    to: { path: '^src/', pathNot: [folders([...from, ...allowed])] },
  };
}

const FOUNDATION = ['spec', 'errors', 'lib'];
const INFRA = ['state', 'store', 'observability', 'pricing', 'secrets'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: move the shared contract down into a module both sides can import.',
      from: {},
      to: { circular: true },
    },
    only('foundation-imports-nothing-above', FOUNDATION, [], 'spec, errors and lib are the foundation: they import nothing else from src/.'),
    only('kernel-imports-only-foundation', ['kernel'], FOUNDATION, 'kernel holds contracts only: it imports spec, errors and lib, nothing else.'),
    only('providers-import-only-foundation', ['providers'], FOUNDATION, 'A provider imports only spec, errors, lib and providers/ (see providers-stay-in-their-folder).'),
    {
      name: 'providers-stay-in-their-folder',
      severity: 'error',
      comment: 'A provider imports its own folder, providers/openai-compatible and the files at the root of providers/, never another provider.',
      from: { path: '^src/providers/([^/]+)/', pathNot: ['^src/providers/vertex-ai/', ...TESTS] },
      to: { path: '^src/providers/[^/]+/', pathNot: ['^src/providers/($1|openai-compatible)/'] },
    },
    {
      name: 'vertex-ai-reuses-only-the-formats-it-hosts',
      severity: 'error',
      comment: "Vertex AI hosts Gemini and Claude in their own wire formats, so it may import providers/google and providers/anthropic's mappers; no other provider.",
      from: { path: '^src/providers/vertex-ai/', pathNot: TESTS },
      to: { path: '^src/providers/[^/]+/', pathNot: ['^src/providers/(vertex-ai|openai-compatible|google|anthropic)/'] },
    },
    {
      name: 'provider-folders-only-through-registry',
      severity: 'error',
      comment: "Outside providers/, reach a provider through providers/provider.ts and providers/registry.ts, never its folder (a provider's name appears only in the registry).",
      from: { path: '^src/', pathNot: ['^src/providers/', ...TESTS] },
      to: { path: '^src/providers/[^/]+/' },
    },
    only('state-imports-only-foundation', ['state'], [...FOUNDATION, 'kernel'], 'state (shared counters, circuits, pub/sub) imports only the foundation and kernel.'),
    only('store-imports-only-foundation', ['store'], [...FOUNDATION, 'kernel'], 'store imports only the foundation and kernel; what a write changed is a kernel contract (runtime-change).'),
    only('observability-imports-only-store', ['observability'], [...FOUNDATION, 'kernel', 'store'], 'observability imports the foundation, kernel and store (request log rows).'),
    only('pricing-imports-only-foundation', ['pricing'], FOUNDATION, 'pricing (the model catalogue and cost of a request) imports only the foundation.'),
    only('secrets-imports-only-infra-below', ['secrets'], [...FOUNDATION, 'kernel', 'store', 'observability'], 'secrets (secret references resolved against secret managers) imports the foundation, kernel, store and observability.'),
    only('routing-below-capabilities', ['routing'], [...FOUNDATION, 'kernel', 'providers', ...INFRA], 'routing sits above providers and below runtime, capabilities and server.'),
    only('runtime-below-capabilities', ['runtime'], [...FOUNDATION, 'kernel', 'providers', ...INFRA, 'routing'], 'runtime (the compiled snapshot) sits below the gateway contracts, capabilities and server.'),
    only('gateway-contracts-below-capabilities', ['gateway'], [...FOUNDATION, 'kernel', 'providers', ...INFRA, 'routing', 'runtime'], 'gateway holds the contracts routes and capabilities are handed; it imports no capability, data-plane or server module.'),
    only('data-plane-below-capabilities', ['data-plane'], [...FOUNDATION, 'kernel', 'providers', ...INFRA, 'routing', 'runtime', 'gateway'], 'the data-plane pipeline is what capabilities call; it imports no capability, control-plane or server module.'),
    {
      name: 'capabilities-below-control-plane-and-server',
      severity: 'error',
      comment: 'A capability imports the layers below it, never control-plane/ or server/.',
      from: { path: folders(CAPABILITIES), pathNot: TESTS },
      to: { path: folders(['control-plane', 'server']) },
    },
    {
      name: 'capabilities-independent',
      severity: 'error',
      comment: 'A capability does not import another one (batches/ and fine-tuning/ have their own rules below).',
      from: { path: folders(CAPABILITIES.filter((c) => c !== 'batches' && c !== 'fine-tuning')), pathNot: TESTS },
      to: { path: folders(CAPABILITIES), pathNot: ['^src/$1/'] },
    },
    {
      name: 'batches-imports-only-files',
      severity: 'error',
      comment: 'batches/ keeps its input and output files in the files capability and imports no other capability.',
      from: { path: '^src/batches/', pathNot: TESTS },
      to: { path: folders(CAPABILITIES), pathNot: [folders(['batches', 'files'])] },
    },
    {
      name: 'fine-tuning-imports-only-files-and-batches',
      severity: 'error',
      comment: 'fine-tuning/ reads files and batches and imports no other capability.',
      from: { path: '^src/fine-tuning/', pathNot: TESTS },
      to: { path: folders(CAPABILITIES), pathNot: [folders(['fine-tuning', 'batches', 'files'])] },
    },
    {
      name: 'control-plane-imports-no-server',
      severity: 'error',
      comment: 'control-plane imports the layers below it (store, runtime, gateway, capabilities), never server/.',
      from: { path: '^src/control-plane/', pathNot: TESTS },
      to: { path: '^src/server/' },
    },
    {
      name: 'server-imported-only-by-main',
      severity: 'error',
      comment: 'server/ wires everything and is imported by none: only src/main.ts (and tests) import it.',
      from: { path: '^src/', pathNot: ['^src/server/', '^src/main\\.ts$', ...TESTS] },
      to: { path: '^src/server/' },
    },
    {
      name: 'src-imports-no-tests',
      severity: 'error',
      comment: 'Production code never imports a test, test/ or a test-support module.',
      from: { path: '^src/', pathNot: TESTS },
      to: { path: ['\\.test\\.ts$', '^test/', '(^|/)test-support\\.ts$'] },
    },
    {
      name: 'heavy-libraries-loaded-on-first-use',
      severity: 'error',
      comment:
        "tldts, openid-client, scim-patch and the A2A SDK (through src/agents/a2a-methods.ts) serve SSO settings, sign-ins, MCP OAuth, SCIM PATCH and agent calls only: they are loaded where used, with await import(), not statically (each holds ~0.5-1 MB of heap in every gateway from start; bench/README.md, session 12).",
      from: { path: '^src/', pathNot: ['^src/agents/a2a-methods\\.ts$', ...TESTS] },
      to: { path: ['node_modules/(tldts|openid-client|scim-patch|@a2a-js/sdk)/', '^src/agents/a2a-methods\\.ts$'], dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-dev-dependency',
      severity: 'error',
      comment: 'Production code imports only packages listed in dependencies (devDependencies are absent from an installed gateway).',
      from: { path: '^src/', pathNot: TESTS },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
