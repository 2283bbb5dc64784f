{{/* berth.fullname is the prefix of every object's name. */}}
{{- define "berth.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* berth.selectorLabels select the manager's pods. */}}
{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* berth.labels go on every object. */}}
{{- define "berth.labels" -}}
{{ include "berth.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "berth.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "berth.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "berth.webhookSecretName" -}}
{{- default (printf "%s-webhook-cert" (include "berth.fullname" .)) .Values.webhook.secretName -}}
{{- end -}}

{{- define "berth.webhookServiceName" -}}
{{- printf "%s-webhook" (include "berth.fullname" .) -}}
{{- end -}}
