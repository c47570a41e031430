import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';

/**
 * The dependency rules of `.dependency-cruiser.cjs` (run by `npm run depcheck` in `npm test`) over a
 * small tree written for the purpose: every rule must fire on its deliberate violation, and the
 * imports the layering allows must pass, so the check can neither pass everything nor refuse the
 * layout it describes.
 */

const repo = resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(join(repo, '.dependency-cruiser.cjs')) as {
  forbidden: Array<{ name: string }>;
  options: ICruiseOptions;
};

/** Importer → what it imports: a path in the tree (`src/...`, `test/...`) or a package name. */
const VIOLATIONS: Array<[from: string, to: string, rules: string[]]> = [
  ['src/foundation/lib/cycle-a.ts', 'src/foundation/lib/cycle-b.ts', ['no-circular']],
  ['src/foundation/spec/chat.ts', 'src/kernel/principal.ts', ['foundation-imports-nothing-above']],
  ['src/kernel/principal.ts', 'src/routing/execute.ts', ['kernel-imports-only-foundation']],
  ['src/providers/acme/acme-chat.ts', 'src/routing/execute.ts', ['providers-import-only-foundation']],
  ['src/providers/acme/acme-stream.ts', 'src/providers/other/other-chat.ts', ['providers-stay-in-their-folder']],
  ['src/providers/vertex-ai/vertex-ai-rerank.ts', 'src/providers/other/other-chat.ts', ['vertex-ai-reuses-only-the-formats-it-hosts']],
  ['src/routing/resolve-target.ts', 'src/providers/acme/acme-chat.ts', ['provider-folders-only-through-registry']],
  [
    'src/infra/observability/metrics.ts',
    'src/routing/execute.ts',
    ['infra-imports-only-foundation-and-kernel', 'observability-imports-store-and-fast'],
  ],
  ['src/infra/state/shared-state.ts', 'src/infra/store/store.ts', ['state-imports-no-other-infra']],
  ['src/infra/store/store.ts', 'src/infra/observability/logger.ts', ['store-imports-no-other-infra']],
  ['src/infra/pricing/catalogue.ts', 'src/kernel/principal.ts', ['pricing-imports-only-foundation']],
  ['src/infra/fast/lean-metrics.ts', 'src/infra/store/store.ts', ['fast-imports-only-what-it-replaces']],
  ['src/infra/observability/metrics.ts', 'src/infra/secrets/secret-resolver.ts', ['observability-imports-store-and-fast']],
  ['src/infra/secrets/secret-resolver.ts', 'src/infra/state/shared-state.ts', ['secrets-imports-store-and-observability']],
  ['src/routing/execute.ts', 'src/runtime/snapshot.ts', ['routing-imports-providers-and-infra']],
  ['src/runtime/snapshot.ts', 'src/identity/authorize.ts', ['runtime-imports-routing-and-below']],
  ['src/identity/session-principal.ts', 'src/data-plane/pipeline/deps.ts', ['identity-below-both-planes']],
  ['src/data-plane/pipeline/deps.ts', 'src/data-plane/endpoints/chat/chat-completions.ts', ['pipeline-below-endpoints']],
  ['src/data-plane/endpoints/chat/chat-completions.ts', 'src/features/cache/cache-capability.ts', ['endpoints-import-pipeline-and-below']],
  ['src/data-plane/endpoints/messages/messages-routes.ts', 'src/data-plane/endpoints/chat/chat-completions.ts', ['endpoints-independent']],
  [
    'src/data-plane/endpoints/batches/batch-worker.ts',
    'src/data-plane/endpoints/responses/responses-routes.ts',
    ['batches-imports-only-files'],
  ],
  [
    'src/data-plane/endpoints/fine-tuning/fine-tuning-routes.ts',
    'src/data-plane/endpoints/images/image-store.ts',
    ['fine-tuning-imports-only-files-and-batches'],
  ],
  ['src/features/cache/cache-capability.ts', 'src/control-plane/resources/index.ts', ['features-import-data-plane-and-below']],
  ['src/features/cache/cache-key.ts', 'src/features/limits/limits-capability.ts', ['features-independent']],
  [
    'src/control-plane/resource/mount-resource.ts',
    'src/server/app.ts',
    ['control-plane-imports-no-server', 'server-imported-only-by-main'],
  ],
  ['src/tools/print-routes.ts', 'src/server/app.ts', ['server-imported-only-by-main']],
  ['src/foundation/lib/json.ts', 'test/helpers/gateway.ts', ['src-imports-no-tests']],
  ['src/features/cache/cache-store.ts', 'src/features/cache/test-support.ts', ['src-imports-no-tests']],
  ['src/foundation/lib/clock.ts', 'src/foundation/lib/missing.ts', ['not-to-unresolvable']],
  ['src/foundation/lib/hash.ts', 'vitest', ['src-not-to-dev-dependency']],
  ['src/control-plane/identity/sso/sso-settings-routes.ts', 'tldts', ['heavy-libraries-loaded-on-first-use']],
  ['src/features/agents/agent-proxy-route.ts', 'src/features/agents/a2a-methods.ts', ['heavy-libraries-loaded-on-first-use']],
];

/** The import closing the cycle above (a cycle is reported once, on either of its edges). */
const CYCLE_BACK_EDGE: [from: string, to: string] = ['src/foundation/lib/cycle-b.ts', 'src/foundation/lib/cycle-a.ts'];

/** Imports the layering allows: none of these may be reported. `dynamic:` marks an `await import()`, `type:` an `import type`. */
const ALLOWED: Array<[from: string, to: string]> = [
  ['src/main.ts', 'src/server/app.ts'],
  ['src/server/app.ts', 'src/control-plane/resources/index.ts'],
  ['src/server/app.ts', 'src/features/cache/cache-capability.ts'],
  ['src/server/app.ts', 'src/data-plane/pipeline/handle-data-plane.ts'],
  ['src/foundation/lib/http-client.ts', 'src/foundation/errors/gateway-error.ts'],
  ['src/kernel/tenant-scope.ts', 'src/foundation/spec/chat.ts'],
  ['src/providers/acme/acme-chat.ts', 'src/providers/openai-compatible/openai-compatible-spec.ts'],
  ['src/providers/acme/acme-chat.ts', 'src/providers/provider.ts'],
  ['src/providers/vertex-ai/vertex-ai-chat.ts', 'src/providers/google/google-chat.ts'],
  ['src/providers/vertex-ai/vertex-ai-chat.ts', 'src/providers/anthropic/anthropic-chat.ts'],
  ['src/providers/registry.ts', 'src/providers/acme/acme-chat.ts'],
  ['src/infra/store/repos/api-keys.ts', 'src/kernel/runtime-change.ts'],
  ['src/infra/observability/request-log.ts', 'src/infra/store/store.ts'],
  ['src/infra/observability/metrics.ts', 'src/infra/fast/lean-metrics.ts'],
  ['src/infra/fast/otlp-span-encoder.ts', 'src/infra/observability/otel-span.ts'],
  ['src/infra/secrets/secret-resolver.ts', 'src/infra/observability/logger.ts'],
  ['src/routing/outcome.ts', 'src/infra/pricing/price-config.ts'],
  ['src/routing/circuit-breaker.ts', 'src/infra/state/shared-state.ts'],
  ['src/routing/stream-answer.ts', 'src/infra/fast/sse-frames.ts'],
  ['src/runtime/runtime.ts', 'src/routing/compile-config.ts'],
  ['src/identity/session-principal.ts', 'src/runtime/snapshot.ts'],
  ['src/data-plane/pipeline/capability.ts', 'src/runtime/runtime.ts'],
  ['src/data-plane/pipeline/route-through-gateway.ts', 'src/data-plane/pipeline/deps.ts'],
  ['src/data-plane/pipeline/handle-data-plane.ts', 'src/identity/authorize.ts'],
  ['src/data-plane/endpoints/models/models.ts', 'src/identity/paging.ts'],
  ['src/data-plane/endpoints/chat/chat-completions.ts', 'src/data-plane/pipeline/handle-data-plane.ts'],
  ['src/data-plane/endpoints/batches/run-batch-line.ts', 'src/data-plane/endpoints/files/file-storage.ts'],
  ['src/data-plane/endpoints/fine-tuning/fine-tuning-capability.ts', 'src/data-plane/endpoints/batches/batch-view.ts'],
  ['src/data-plane/endpoints/fine-tuning/fine-tuning-capability.ts', 'src/data-plane/endpoints/files/file-storage.ts'],
  ['src/features/cache/cache-interceptor.ts', 'src/data-plane/pipeline/route-through-gateway.ts'],
  ['src/features/cache/cache-interceptor.ts', 'src/identity/authorize.ts'],
  ['src/control-plane/resources/guardrails/guardrails.resource.ts', 'src/features/guardrails/guardrail-spec.ts'],
  ['src/control-plane/resources/guardrails/guardrails.resource.ts', 'src/data-plane/pipeline/deps.ts'],
  ['src/control-plane/resources/api-keys/api-keys.resource.ts', 'src/identity/authorize.ts'],
  ['src/features/cache/cache-key.test.ts', 'src/server/app.ts'],
  ['test/e2e/chat.test.ts', 'src/server/app.ts'],
  ['test/e2e/chat.test.ts', 'src/providers/acme/acme-chat.ts'],
  ['src/foundation/lib/sse.ts', 'typebox'],
  ['src/control-plane/identity/sso/sso-domains.ts', 'dynamic:tldts'],
  ['src/features/agents/agents-capability.ts', 'dynamic:src/features/agents/a2a-methods.ts'],
  ['src/features/agents/a2a-methods.ts', '@a2a-js/sdk'],
  ['src/features/mcp/oauth/connect-flow.ts', 'type:openid-client'],
];

const MISSING = 'src/foundation/lib/missing.ts';
let typeImports = 0;

/** A table's import target without its `dynamic:` / `type:` mark. */
const bare = (to: string): string => to.replace(/^(dynamic|type):/, '');
let root: string;
let violations: IViolation[];

/** Writes every importer with its imports, and an empty module for every other path named (but the missing one). */
function writeTree(): void {
  const imports = new Map<string, string[]>();
  for (const [from, to] of [...VIOLATIONS, CYCLE_BACK_EDGE, ...ALLOWED]) {
    imports.set(from, [...(imports.get(from) ?? []), to]);
    const path = bare(to);
    if ((path.startsWith('src/') || path.startsWith('test/')) && path !== MISSING && !imports.has(path)) imports.set(path, []);
  }
  for (const [file, targets] of imports) {
    const lines = targets.map((to) => {
      const path = bare(to);
      let spec = path;
      if (path.startsWith('src/') || path.startsWith('test/')) {
        spec = relative(dirname(file), path).replace(/\.ts$/, '.js');
        if (!spec.startsWith('.')) spec = `./${spec}`;
      }
      if (to.startsWith('dynamic:')) return `await import('${spec}');`;
      if (to.startsWith('type:')) return `import type * as T${typeImports++} from '${spec}';`;
      return `import '${spec}';`;
    });
    mkdirSync(join(root, dirname(file)), { recursive: true });
    writeFileSync(join(root, file), `${lines.join('\n')}\nexport {};\n`);
  }
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({
      name: 'fixture',
      type: 'module',
      dependencies: { typebox: '*', tldts: '*', '@a2a-js/sdk': '*', 'openid-client': '*' },
      devDependencies: { vitest: '*' },
    }),
  );
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  );
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
}

/** A reported violation as `from → to` in the tables' terms (a package by its name, the missing module by its path). */
function pairOf(v: IViolation): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(v.to)?.[1];
  const to = pkg ?? (v.to.endsWith('missing.js') ? MISSING : v.to);
  return `${v.from} → ${to}`;
}

describe('dependency rules (.dependency-cruiser.cjs)', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'depcheck-'));
    writeTree();
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const result = await cruise(['src', 'test'], {
        ...config.options,
        ruleSet: { forbidden: config.forbidden } as ICruiseOptions['ruleSet'],
        validate: true,
      });
      if (typeof result.output === 'string') throw new Error('expected a cruise result object');
      violations = result.output.summary.violations;
    } finally {
      process.chdir(cwd);
    }
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const cycle = [`${CYCLE_BACK_EDGE[0]} → ${CYCLE_BACK_EDGE[1]}`, `${CYCLE_BACK_EDGE[1]} → ${CYCLE_BACK_EDGE[0]}`];
  /** The rules reported on `from → to` (the cycle's rule on either of its edges). */
  const reported = (from: string, to: string) =>
    violations
      .filter(
        (v) =>
          pairOf(v) === `${from} → ${bare(to)}` ||
          (v.rule.name === 'no-circular' && cycle.includes(`${from} → ${to}`) && cycle.includes(pairOf(v))),
      )
      .map((v) => v.rule.name)
      .sort();

  it.each(VIOLATIONS)('%s → %s breaks %j', (from, to, rules) => {
    expect(reported(from, to)).toEqual([...rules].sort());
  });

  it.each(ALLOWED)('%s → %s is allowed', (from, to) => {
    expect(reported(from, to)).toEqual([]);
  });

  it('reports nothing but the deliberate violations', () => {
    const expected = new Set([...VIOLATIONS.map(([from, to]) => `${from} → ${to}`), ...cycle]);
    expect(violations.map(pairOf).filter((pair) => !expected.has(pair))).toEqual([]);
  });

  it('every rule of the configuration has a deliberate violation here', () => {
    const covered = new Set(VIOLATIONS.flatMap(([, , rules]) => rules));
    expect(config.forbidden.map((r) => r.name).filter((name) => !covered.has(name))).toEqual([]);
  });
});
