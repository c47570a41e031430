import { api, unwrap } from '../api/client';
import type { AnswerOf, BodyOf } from '../api/types';
import { ResourceList } from '../components/resource-list';
import { Badge, Time } from '../components/ui';

type Guardrail = AnswerOf<'/v1/guardrails/{id}', 'get'>;
type Integration = AnswerOf<'/v1/integrations/{id}', 'get'>;
type Provider = AnswerOf<'/v1/providers/{id}', 'get'>;

/** Guardrails: checks and actions, edited as JSON and validated by the gateway. */
export function GuardrailsPage() {
  return (
    <ResourceList<Guardrail>
      title="Guardrails"
      noun="guardrail"
      crud={{
        list: (query) => unwrap(api.GET('/v1/guardrails', { params: { query } })),
        create: (body) => unwrap(api.POST('/v1/guardrails', { body: body as BodyOf<'/v1/guardrails', 'post'> })),
        update: (id, body) =>
          unwrap(api.PUT('/v1/guardrails/{id}', { params: { path: { id } }, body: body as BodyOf<'/v1/guardrails/{id}', 'put'> })),
        remove: (id) => unwrap(api.DELETE('/v1/guardrails/{id}', { params: { path: { id } } })),
      }}
      columns={[
        { label: 'Name', cell: (g) => g.name },
        { label: 'Slug', cell: (g) => <code>{g.slug}</code> },
        { label: 'Checks', cell: (g) => g.checks.map((c) => c.id).join(', ') },
        { label: 'Updated', cell: (g) => <Time value={g.updated_at} /> },
      ]}
      template={{ name: 'No emails', checks: [{ id: 'regexMatch', parameters: { rule: '[\\w.]+@[\\w.]+' } }], actions: { deny: true } }}
      editable={(g) => ({ name: g.name, checks: g.checks, actions: g.actions })}
    />
  );
}

/** Integrations: provider credentials (the key is write-only; the list shows its hint). */
export function IntegrationsPage() {
  return (
    <ResourceList<Integration>
      title="Integrations"
      noun="integration"
      crud={{
        list: (query) => unwrap(api.GET('/v1/integrations', { params: { query } })),
        create: (body) => unwrap(api.POST('/v1/integrations', { body: body as BodyOf<'/v1/integrations', 'post'> })),
        update: (id, body) =>
          unwrap(api.PUT('/v1/integrations/{id}', { params: { path: { id } }, body: body as BodyOf<'/v1/integrations/{id}', 'put'> })),
        remove: (id) => unwrap(api.DELETE('/v1/integrations/{id}', { params: { path: { id } } })),
      }}
      columns={[
        { label: 'Name', cell: (i) => i.name },
        { label: 'Slug', cell: (i) => <code>@{i.slug}</code> },
        { label: 'Provider', cell: (i) => i.ai_provider_id },
        { label: 'Key', cell: (i) => <code>{i.key_hint ?? '—'}</code> },
        { label: 'Status', cell: (i) => <Badge tone={i.status === 'active' ? 'ok' : 'neutral'}>{i.status}</Badge> },
      ]}
      template={{ name: 'OpenAI production', ai_provider_id: 'openai', key: 'sk-…' }}
      editable={(i) => ({ name: i.name, configurations: i.configurations })}
    />
  );
}

/** Providers (virtual keys): a provider with its credential or integration, addressable as `@slug`. */
export function ProvidersPage() {
  return (
    <ResourceList<Provider>
      title="Providers"
      noun="provider"
      crud={{
        list: (query) => unwrap(api.GET('/v1/providers', { params: { query } })),
        create: (body) => unwrap(api.POST('/v1/providers', { body: body as BodyOf<'/v1/providers', 'post'> })),
        update: (id, body) =>
          unwrap(api.PUT('/v1/providers/{id}', { params: { path: { id } }, body: body as BodyOf<'/v1/providers/{id}', 'put'> })),
        remove: (id) => unwrap(api.DELETE('/v1/providers/{id}', { params: { path: { id } } })),
      }}
      columns={[
        { label: 'Name', cell: (p) => p.name },
        { label: 'Slug', cell: (p) => <code>@{p.slug}</code> },
        { label: 'Provider', cell: (p) => p.provider ?? '—' },
        { label: 'Integration', cell: (p) => p.integration_id ?? '—' },
        { label: 'Status', cell: (p) => <Badge tone={p.status === 'active' ? 'ok' : 'neutral'}>{p.status}</Badge> },
      ]}
      template={{ name: 'OpenAI', provider: 'openai', key: 'sk-…' }}
      editable={(p) => ({ name: p.name, config: p.config })}
    />
  );
}
