{{/* The release's full name. */}}
{{- define "ai-gateway.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{/* Labels selecting the pods. */}}
{{- define "ai-gateway.selectorLabels" -}}
app.kubernetes.io/name: ai-gateway
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "ai-gateway.labels" -}}
{{ include "ai-gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ai-gateway.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The Secret holding the encryption and admin keys. */}}
{{- define "ai-gateway.keysSecret" -}}
{{ .Values.secrets.existingSecret | default (printf "%s-keys" (include "ai-gateway.fullname" .)) }}
{{- end -}}

{{/* The Secret holding URLs given as values. */}}
{{- define "ai-gateway.urlsSecret" -}}
{{ printf "%s-urls" (include "ai-gateway.fullname" .) }}
{{- end -}}

{{- define "ai-gateway.postgresEnabled" -}}
{{- if or .Values.postgres.url .Values.postgres.existingSecret }}true{{ end -}}
{{- end -}}

{{/* DATABASE_URL and DATABASE_SCHEMA env entries (empty without PostgreSQL). */}}
{{- define "ai-gateway.databaseEnv" -}}
{{- if .Values.postgres.existingSecret }}
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ .Values.postgres.existingSecret }}, key: {{ .Values.postgres.existingSecretKey }} } }
{{- else if .Values.postgres.url }}
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ include "ai-gateway.urlsSecret" . }}, key: database-url } }
{{- end }}
{{- if .Values.postgres.schema }}
- name: DATABASE_SCHEMA
  value: {{ .Values.postgres.schema | quote }}
{{- end }}
{{- end -}}

{{- define "ai-gateway.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities: { drop: [ALL] }
{{- end -}}
