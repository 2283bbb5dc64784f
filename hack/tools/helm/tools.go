//go:build tools

// Package tools pins helm, which `make helm-lint` and the chart checks in
// `make test` run; the Makefile builds it from this module.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
