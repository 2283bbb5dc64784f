{{/* berth.name is the chart's name, or nameOverride; it is the app.kubernetes.io/name label. */}}
{{- define "berth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* berth.fullname is the prefix of every object's name: fullnameOverride, else the release's name followed by berth.name unless it already holds it. */}}
{{- define "berth.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "berth.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* berth.selectorLabels select the manager's pods. */}}
{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "berth.name" . }}
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

{{/* berth.image is the manager's image: repository@digest when image.digest is set, else repository:tag (tag defaults to the chart's appVersion). */}}
{{- define "berth.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* berth.testSchedulerName is the schedulerName of the helm test pod: tests.schedulerName, else defaultProfile; empty renders no test. */}}
{{- define "berth.testSchedulerName" -}}
{{- default .Values.defaultProfile .Values.tests.schedulerName -}}
{{- end -}}
