/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package validate checks Berth's objects offline, as a cluster running
// Berth would: the CRD schema as the apiserver applies it (Schema), the
// validating webhook's checks (Validator, whose Admit the webhook in
// controllers/webhook calls too, so that the two cannot disagree), and the
// controllers' checks, alone and across the objects checked together
// (Checker). `berth validate` is its command line.
//
// The CRDs come from config/crd, which embeds config/crd/bases (a go:embed
// directive): `make manifests` writes them there and nothing copies them, so
// the binary always validates against the CRDs it was built with.
package validate
