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

{{/* berth.certManagerIssuer is the self-signed Issuer's name. */}}
{{- define "berth.selfSignedIssuerName" -}}
{{- printf "%s-selfsigned" (include "berth.fullname" .) -}}
{{- end -}}

{{/* berth.metricsCertManager is "true" when cert-manager issues the metrics server's certificate. */}}
{{- define "berth.metricsCertManager" -}}
{{- if and .Values.metrics.enabled .Values.metrics.secure .Values.metrics.certManager.enabled .Values.webhook.certManager.enabled (not .Values.metrics.secretName) -}}
true
{{- end -}}
{{- end -}}

{{/* berth.metricsSecretName holds the metrics server's tls.crt, tls.key and ca.crt; empty when the manager signs its own. */}}
{{- define "berth.metricsSecretName" -}}
{{- if .Values.metrics.secretName -}}
{{- .Values.metrics.secretName -}}
{{- else if include "berth.metricsCertManager" . -}}
{{- printf "%s-metrics-cert" (include "berth.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "berth.metricsServiceName" -}}
{{- printf "%s-metrics" (include "berth.fullname" .) -}}
{{- end -}}

{{/* berth.metricsScraperName names the ServiceAccount whose token the ServiceMonitor presents. */}}
{{- define "berth.metricsScraperName" -}}
{{- printf "%s-metrics-scraper" (include "berth.fullname" .) -}}
{{- end -}}

{{/* berth.metricsTokenSecret holds the `token` the ServiceMonitor presents. */}}
{{- define "berth.metricsTokenSecret" -}}
{{- default (printf "%s-token" (include "berth.metricsScraperName" .)) .Values.metrics.serviceMonitor.tokenSecret -}}
{{- end -}}
