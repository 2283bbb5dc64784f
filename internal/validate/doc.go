// Package validate checks Berth's objects offline, as a cluster running
// Berth would: the CRD schema as the apiserver applies it (Schema), the
// validating webhook's checks (Validator, whose Admit the webhook in
// controllers/webhook calls too, so that the two cannot disagree), and the
// controllers' checks, alone and across the objects checked together
// (Checker). `berth validate` is its command line.
//
// The CRDs come from config/crd, which embeds config/crd/bases with
// go:embed: `make manifests` writes them there and nothing copies them, so
// the binary always validates against the CRDs it was built with.
package validate
