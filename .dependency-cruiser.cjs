/**
 * The dependency rules of docs/architecture.md, checked by `npm run depcheck` (part of `npm test`).
 *
 * The tree under src/ is the layer table: a folder imports only from itself and the folders above it in
 * this list (lowest first), written as folder prefixes:
 *   foundation/     spec/, errors/, lib/: import nothing else from src/
 *   kernel/         contracts only (principal, permissions, roles, settings, tenant scope, runtime change)
 *   providers/      one adapter per provider, reached from outside only through provider.ts and registry.ts
 *   infra/          store/, state/, observability/, pricing/, secrets/, fast/ (hand-written replacements of libraries)
 *   routing/        config, strategy walk, retry, circuit breaker
 *   runtime/        the compiled snapshot the hot path reads
 *   identity/       key / session / JWT -> principal, tenant scope, paging: below both planes
 *   data-plane/     pipeline/ (what every data-plane route runs through), then endpoints/<name>/
 *   features/       one folder per capability (cache, guardrails, prompts, limits, mcp, agents)
 *   control-plane/  admin resources (may use a feature's validation)
 *   server/         the Fastify app and its wiring; imported by main.ts only
 *
 * Tests (`*.test.ts`, `test/`) may import across layers; they may not form cycles either.
 */

const TESTS = ['\\.test\\.ts$', '^test/'];
/** The layers in the order of the tree, lowest first. */
const ORDER = [
  'foundation',
  'kernel',
  'providers',
  'infra',
  'routing',
  'runtime',
  'identity',
  'data-plane/pipeline',
  'data-plane/endpoints',
  'features',
  'control-plane',
  'server',
];
/** The layers below `layer`. */
const below = (layer) => ORDER.slice(0, ORDER.indexOf(layer));
const FOUNDATION = 'foundation';
const KERNEL = 'kernel';

/** The regular expression of src/ folders (prefixes such as `infra/store`). */
const folders = (names) => `^src/(${names.join('|')})/`;

/** A rule that lets the folders `from` import only `allowed` (their own folders included). */
function only(name, from, allowed, comment) {
  return {
    name,
    severity: 'error',
    comment,
    from: { path: folders(from), pathNot: TESTS },
    to: { path: '^src/', pathNot: [folders([...from, ...allowed])] },
  };
}

/** A rule that keeps the subfolders of `parent` apart: each imports only itself and `shared` among them. */
function apart(name, parent, comment, { except = [], shared = [] } = {}) {
  return {
    name,
    severity: 'error',
    comment,
    from: { path: `^src/${parent}/([^/]+)/`, pathNot: [...except.map((e) => `^src/${parent}/${e}/`), ...TESTS] },
    to: { path: `^src/${parent}/[^/]+/`, pathNot: [`^src/${parent}/(${['$1', ...shared].join('|')})/`] },
  };
}

/** A rule that lets the subfolder `child` of `parent` import only `allowed` among its siblings. */
function reaches(name, parent, child, allowed, comment) {
  return {
    name,
    severity: 'error',
    comment,
    from: { path: `^src/${parent}/${child}/`, pathNot: TESTS },
    to: { path: `^src/${parent}/[^/]+/`, pathNot: [`^src/${parent}/(${[child, ...allowed].join('|')})/`] },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: move the shared contract down into a module both sides can import.',
      from: {},
      to: { circular: true },
    },
    only(
      'foundation-imports-nothing-above',
      [FOUNDATION],
      below(FOUNDATION),
      'foundation/ (spec, errors, lib) imports nothing else from src/.',
    ),
    only('kernel-imports-only-foundation', [KERNEL], below(KERNEL), 'kernel/ holds contracts only: it imports foundation/, nothing else.'),
    only(
      'providers-import-only-foundation',
      ['providers'],
      [FOUNDATION],
      'A provider imports only foundation/ and providers/ (see providers-stay-in-their-folder).',
    ),
    apart(
      'providers-stay-in-their-folder',
      'providers',
      'A provider imports its own folder, providers/openai-compatible and the files at the root of providers/, never another provider.',
      { except: ['vertex-ai'], shared: ['openai-compatible'] },
    ),
    reaches(
      'vertex-ai-reuses-only-the-formats-it-hosts',
      'providers',
      'vertex-ai',
      ['openai-compatible', 'google', 'anthropic'],
      "Vertex AI hosts Gemini and Claude in their own wire formats, so it may import providers/google and providers/anthropic's mappers; no other provider.",
    ),
    {
      name: 'provider-folders-only-through-registry',
      severity: 'error',
      comment:
        "Outside providers/, reach a provider through providers/provider.ts and providers/registry.ts, never its folder (a provider's name appears only in the registry).",
      from: { path: '^src/', pathNot: ['^src/providers/', ...TESTS] },
      to: { path: '^src/providers/[^/]+/' },
    },
    only(
      'infra-imports-only-foundation-and-kernel',
      ['infra'],
      [FOUNDATION, KERNEL],
      'infra/ (store, state, observability, pricing, secrets, fast) imports foundation/ and kernel/ only.',
    ),
    only(
      'state-imports-no-other-infra',
      ['infra/state'],
      [FOUNDATION, KERNEL],
      'infra/state (shared counters, circuits, pub/sub) imports no other infra folder.',
    ),
    only(
      'store-imports-no-other-infra',
      ['infra/store'],
      [FOUNDATION, KERNEL],
      'infra/store imports no other infra folder; what a write changed is a kernel contract (runtime-change).',
    ),
    only(
      'pricing-imports-only-foundation',
      ['infra/pricing'],
      [FOUNDATION],
      'infra/pricing (the model catalogue and cost of a request) imports only foundation/.',
    ),
    only(
      'fast-imports-only-what-it-replaces',
      ['infra/fast'],
      [FOUNDATION, 'infra/observability'],
      'infra/fast imports foundation/ and, for the OTLP encoder, the span it encodes (infra/observability): each fast path can be dropped for the library it replaces.',
    ),
    only(
      'observability-imports-store-and-fast',
      ['infra/observability'],
      [FOUNDATION, KERNEL, 'infra/store', 'infra/fast'],
      'infra/observability imports foundation/, kernel/, infra/store (request log rows) and infra/fast.',
    ),
    only(
      'secrets-imports-store-and-observability',
      ['infra/secrets'],
      [FOUNDATION, KERNEL, 'infra/store', 'infra/observability'],
      'infra/secrets (secret references resolved against secret managers) imports infra/store and infra/observability.',
    ),
    only(
      'routing-imports-providers-and-infra',
      ['routing'],
      below('routing'),
      'routing/ sits above providers/ and infra/, below runtime/ and everything else.',
    ),
    only(
      'runtime-imports-routing-and-below',
      ['runtime'],
      below('runtime'),
      'runtime/ (the compiled snapshot) imports routing/ and the layers below it.',
    ),
    only(
      'identity-below-both-planes',
      ['identity'],
      below('identity'),
      'identity/ (who calls: key, session, JWT) imports runtime/ and below; both planes import it, it imports neither.',
    ),
    only(
      'pipeline-below-endpoints',
      ['data-plane/pipeline'],
      below('data-plane/pipeline'),
      'data-plane/pipeline is what endpoints and features call; it imports no endpoint, feature, control-plane or server module.',
    ),
    only(
      'endpoints-import-pipeline-and-below',
      ['data-plane/endpoints'],
      below('data-plane/endpoints'),
      'A data-plane endpoint imports the pipeline and the layers below, never a feature, control-plane/ or server/.',
    ),
    apart(
      'endpoints-independent',
      'data-plane/endpoints',
      'An endpoint does not import another one (batches and fine-tuning keep their files in the files endpoint; fine-tuning reads batches).',
      { except: ['batches', 'fine-tuning'] },
    ),
    reaches(
      'batches-imports-only-files',
      'data-plane/endpoints',
      'batches',
      ['files'],
      'endpoints/batches keeps its input and output files in endpoints/files and imports no other endpoint.',
    ),
    reaches(
      'fine-tuning-imports-only-files-and-batches',
      'data-plane/endpoints',
      'fine-tuning',
      ['batches', 'files'],
      'endpoints/fine-tuning reads files and batches and imports no other endpoint.',
    ),
    only(
      'features-import-data-plane-and-below',
      ['features'],
      below('features'),
      'A feature imports data-plane/ and the layers below, never control-plane/ or server/.',
    ),
    apart('features-independent', 'features', 'A feature does not import another one: what two features share goes down a layer.'),
    {
      name: 'control-plane-imports-no-server',
      severity: 'error',
      comment: 'control-plane/ imports the layers below it (store, runtime, identity, data-plane, features), never server/.',
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
        'tldts, openid-client, scim-patch and the A2A SDK (through src/features/agents/a2a-methods.ts) serve SSO settings, sign-ins, MCP OAuth, SCIM PATCH and agent calls only: they are loaded where used, with await import(), not statically (each holds ~0.5-1 MB of heap in every gateway from start; bench/README.md, session 12).',
      from: { path: '^src/', pathNot: ['^src/features/agents/a2a-methods\\.ts$', ...TESTS] },
      to: {
        path: ['node_modules/(tldts|openid-client|scim-patch|@a2a-js/sdk)/', '^src/features/agents/a2a-methods\\.ts$'],
        dynamic: false,
        dependencyTypesNot: ['type-only'],
      },
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
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
