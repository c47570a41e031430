import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { ROOT } from './podman.js';
import { helmBinary, validatorOf } from './tools.js';

/** The Helm chart and compose file (operations.md §5), linted, rendered and validated against the Kubernetes schemas. */
const CHART = join(ROOT, 'deploy/helm/ai-gateway');
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The HA values the contract names (also the example in docs/deployment.md). */
const HA_VALUES = `replicaCount: 3
image: { repository: registry.example.test/ai-gateway, tag: "9.9.9" }
resources: { requests: { cpu: "1", memory: 768Mi }, limits: { memory: 1536Mi } }
postgres: { existingSecret: gw-db, existingSecretKey: url }
redis: { url: "redis://redis.example.test:6379" }
secrets: { existingSecret: gw-keys }
config: { document: "version: 1\\n" }
autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 12, targetCPUUtilizationPercentage: 60 }
pdb: { enabled: true, minAvailable: 2 }
serviceMonitor: { enabled: true }
networkPolicy: { enabled: true }
ingress: { enabled: true, className: nginx, hosts: [{ host: gw.example.test, paths: [{ path: /, pathType: Prefix }] }] }
`;

type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
};

function helm(args: string[]): string {
  return execFileSync(helmBinary(), args, {
    encoding: 'utf8',
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(tmpdir(), 'helm-cache'),
      HELM_CONFIG_HOME: join(tmpdir(), 'helm-config'),
      HELM_DATA_HOME: join(tmpdir(), 'helm-data'),
    },
  });
}

async function render(values?: string): Promise<K8sObject[]> {
  const args = ['template', 'gw', CHART, '--namespace', 'ai'];
  if (values) {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-values-')), 'values.yaml');
    writeFileSync(file, values);
    args.push('-f', file);
    expect(helm(['lint', CHART, '-f', file])).toContain('0 chart(s) failed');
  }
  const objects = parseAllDocuments(helm(args))
    .map((d) => d.toJS() as K8sObject)
    .filter(Boolean);
  for (const o of objects) {
    const validate = await validatorOf(o.apiVersion, o.kind);
    expect(validate, `${o.apiVersion} ${o.kind} has a schema`).toBeDefined();
    expect(() => validate!(o as unknown as Record<string, unknown>), `${o.kind} ${o.metadata.name}`).not.toThrow();
  }
  return objects;
}

const find = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);

describe('the Helm chart deploy/helm/ai-gateway', () => {
  it('Chart.yaml names the package version; helm lint passes with the defaults', () => {
    const chart = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as Record<string, string>;
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'ai-gateway', appVersion: version });
    expect(helm(['lint', CHART])).toContain('0 chart(s) failed');
  }, 300_000);

  it('renders valid objects with the defaults: Deployment with probes and a locked-down container, Service, generated key Secret', async () => {
    const objects = await render();
    const [deployment] = find(objects, 'Deployment');
    const pod = deployment!.spec.template;
    expect(pod.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'ai-gateway', 'app.kubernetes.io/instance': 'gw' });
    const c = pod.spec.containers[0];
    expect(c.image).toBe(`ai-gateway:${version}`);
    expect(c.ports[0].containerPort).toBe(8787);
    expect(c.livenessProbe.httpGet.path).toBe('/health/live');
    expect(c.readinessProbe.httpGet.path).toBe('/health/ready');
    expect(['/health/live', '/health/ready']).toContain(c.startupProbe.httpGet.path);
    expect(c.resources).toEqual({ requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } });
    expect(c.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual(expect.arrayContaining(['/tmp', '/data']));
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(35);
    expect(deployment!.spec.replicas).toBe(1);
    const keys = find(objects, 'Secret').find((s) => s.data?.['encryption-key']);
    expect(Buffer.from(Buffer.from(keys!.data!['encryption-key']!, 'base64').toString(), 'base64')).toHaveLength(32);
    expect(find(objects, 'Job')).toHaveLength(0);
    expect(find(objects, 'PodDisruptionBudget')).toHaveLength(0);
    expect(find(objects, 'Service')[0]!.spec.ports[0].port).toBe(8787);
  }, 300_000);

  it('renders valid objects with the HA values: HPA, PDB, ServiceMonitor, NetworkPolicy, Ingress, ConfigMap, migration Job, no key Secret', async () => {
    const objects = await render(HA_VALUES);
    const [deployment] = find(objects, 'Deployment');
    expect(deployment!.spec.replicas).toBeUndefined();
    const c = deployment!.spec.template.spec.containers[0];
    expect(c.image).toBe('registry.example.test/ai-gateway:9.9.9');
    const env = Object.fromEntries(c.env.map((e: { name: string }) => [e.name, e]));
    expect(env.GATEWAY_ENCRYPTION_KEY.valueFrom.secretKeyRef).toEqual({ name: 'gw-keys', key: 'encryption-key' });
    expect(env.GATEWAY_ADMIN_KEY.valueFrom.secretKeyRef).toEqual({ name: 'gw-keys', key: 'admin-key' });
    expect(env.DATABASE_URL.valueFrom.secretKeyRef).toEqual({ name: 'gw-db', key: 'url' });
    expect(env.REDIS_URL.valueFrom.secretKeyRef.key).toBe('redis-url');
    expect(env.GATEWAY_CONFIG_FILE.value).toBe('/etc/ai-gateway/config.yaml');
    expect(find(objects, 'Secret').some((s) => s.data?.['encryption-key'])).toBe(false);
    expect(find(objects, 'ConfigMap')[0]!.data).toEqual({ 'config.yaml': 'version: 1\n' });
    expect(find(objects, 'HorizontalPodAutoscaler')[0]!.spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 12,
      metrics: [{ resource: { target: { averageUtilization: 60 } } }],
    });
    expect(find(objects, 'PodDisruptionBudget')[0]!.spec.minAvailable).toBe(2);
    expect(find(objects, 'ServiceMonitor')[0]!.spec.endpoints[0].path).toBe('/metrics');
    expect(find(objects, 'NetworkPolicy')[0]!.spec.ingress[0].ports[0].port).toBe(8787);
    expect(find(objects, 'Ingress')[0]!.spec.ingressClassName).toBe('nginx');
    const [job] = find(objects, 'Job');
    expect(job!.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(job!.spec.template.spec.containers[0].args).toContain('migrate');
    expect(
      job!.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef,
    ).toEqual({ name: 'gw-db', key: 'url' });
  }, 300_000);
});

describe('deploy/compose.yaml', () => {
  it('has PostgreSQL, Redis and two gateway replicas with keys from the environment and a read-only config mount', () => {
    const compose = parse(readFileSync(join(ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, any> };
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'redis']));
    const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway'));
    expect(gateways).toHaveLength(2);
    for (const [, g] of gateways) {
      expect(g.build.dockerfile).toBe('Dockerfile');
      expect(g.environment.DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(g.environment.REDIS_URL).toMatch(/^redis:\/\/redis:/);
      expect(g.environment.GATEWAY_ENCRYPTION_KEY).toMatch(/^\$\{GATEWAY_ENCRYPTION_KEY[:?}]/);
      expect(g.environment.GATEWAY_ADMIN_KEY).toMatch(/^\$\{GATEWAY_ADMIN_KEY[:?}]/);
      expect(g.environment.GATEWAY_CONFIG_FILE).toMatch(/^\$\{GATEWAY_CONFIG_FILE/);
      expect(g.volumes.some((v: string) => v.endsWith(':/etc/ai-gateway:ro'))).toBe(true);
      expect(Object.keys(g.depends_on)).toContain('postgres');
    }
  });
});
