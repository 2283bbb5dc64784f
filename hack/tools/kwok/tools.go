//go:build tools

// Package tools pins kwok, which the local cluster and the e2e tests run as
// fake nodes; hack/local-cluster.sh builds it from this module.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
