# Berth's Makefile. `make help` lists the targets.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BIN := $(ROOT)/bin
K8S_BIN := $(BIN)/k8s
CONTROLLER_GEN := $(BIN)/controller-gen
GINKGO := $(BIN)/ginkgo
HELM := $(BIN)/helm
PROMTOOL := $(BIN)/promtool
GOLANGCI_LINT := $(BIN)/golangci-lint
ACTIONLINT := $(BIN)/actionlint
GOVULNCHECK := $(BIN)/govulncheck
VULNDB_INDEXDB := $(BIN)/vulndb-indexdb
# The vulnerability database govulncheck reads, built offline from the
# pinned golang.org/x/vulndb (hack/vulndb.sh).
VULNDB := $(BIN)/vulndb
K8S_VERSION := 1.37.1

# Berth, examples/* and the build tools of hack/tools build with the
# toolchain their go.mod's `toolchain` line names, one for all (Go's default,
# GOTOOLCHAIN=auto, which a machine's go.env may have set to local); the go
# command fetches it through the module proxy on first use
# (golang.org/toolchain). With one toolchain, and the versions of every
# module they share kept equal to Berth's (hack/toolsalign, checked by make
# verify), one Go build cache compiles each shared package once: the control
# plane's build compiles most of what Berth's tests need.
export GOTOOLCHAIN := auto
# Every build here is the release build's kind: static (no cgo) with
# -trimpath, as the Dockerfile, hack/release.sh and hack/control-plane.sh
# build. A package's build differs with either setting, so the tests, the
# tools, the control plane and test/imagebuild's build of the image's binary
# then share one compilation of each package instead of two.
export CGO_ENABLED := 0
export GOFLAGS := $(strip $(filter-out -trimpath,$(GOFLAGS)) -trimpath)

# The chart rendered with every optional object on; test/integration/helm
# applies it to the test apiserver with server-side dry-run.
CHART := charts/berth
export BERTH_CHART_RENDERED := $(BIN)/chart/rendered.yaml

# Tests run against the control-plane binaries that hack/control-plane.sh builds.
export KUBEBUILDER_ASSETS := $(K8S_BIN)

# Everything but the envtest suites, the envtest benchmarks and the e2e suite; the public
# test helper's own unit tests (test/berthtest) are unit tests.
UNIT_PACKAGES = $(shell go list ./... | grep -v -e /test/integration/ -e /test/perf/ -e /test/e2e -e '/test/faults$$')

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy methods for the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate CRDs into config/crd/bases, RBAC and the webhook configuration from markers.
	$(CONTROLLER_GEN) crd:allowDangerousTypes=false rbac:roleName=berth-manager webhook paths="./..." \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac \
		output:webhook:artifacts:config=config/webhook
	$(MAKE) --no-print-directory helm-sync

.PHONY: fmt
fmt: ## Run gofmt on the code.
	gofmt -s -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) $(ACTIONLINT) ## Run golangci-lint (.golangci.yml) on the module, and actionlint on the GitHub Actions workflows.
	$(GOLANGCI_LINT) run ./...
	$(ACTIONLINT)

.PHONY: vulncheck
vulncheck: $(GOVULNCHECK) $(VULNDB_INDEXDB) ## Run govulncheck on the module against the Go vulnerability database of the pinned golang.org/x/vulndb, built offline (hack/vulndb.sh).
	hack/vulndb.sh $(VULNDB) $(VULNDB_INDEXDB)
	$(GOVULNCHECK) -db file://$(VULNDB) ./...

.PHONY: verify
# go vet's analyzers run in make lint (golangci-lint's govet), which make
# test runs beside verify: verify does not run them a second time.
verify: $(CONTROLLER_GEN) vulncheck ## Fail when generated files are stale, a Go file lacks the license header, gofmt complains, govulncheck finds a called vulnerability, a build tool's modules drift from Berth's, or go.mod is not tidy (go vet runs in make lint).
	hack/verify-generated.sh $(CONTROLLER_GEN)
	go run ./hack/toolsalign
	@GOFLAGS= go mod tidy -diff >/dev/null || { echo "go.mod or go.sum is not tidy; run 'go mod tidy' and commit:"; GOFLAGS= go mod tidy -diff; exit 1; }
	@out=$$(gofmt -s -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needs to run on:"; echo "$$out"; exit 1; fi
	hack/boilerplate.sh

##@ Test

# Each step of make test and make test-e2e is timed (hack/steps.sh); the
# table of steps is printed at the end, and CI's budget is checked there.
STEP = hack/steps.sh run
# Where the steps are recorded: make test and make test-e2e start it
# afresh, unless the caller (.ci/run) names its own file to add to.
BERTH_STEPS_FILE ?= $(BIN)/steps.tsv
export BERTH_STEPS_FILE
SUBMAKE = $(MAKE) --no-print-directory
# CI is allowed 90 minutes; .ci/run warns past this many seconds.
CI_BUDGET_SECONDS ?= 3000

# The control plane is built first, alone: its build compiles most of the
# packages Berth and its tools build from (hack/toolsalign keeps their
# versions equal), so the lanes find them in the Go build cache instead of
# compiling them a second time side by side.
.PHONY: test
test: ## Verify, lint the Go code and the Helm chart, test the alerting rules, run unit, example and integration tests, then the quick throughput bench: the control plane first, then two lanes side by side (test-lane-static, test-lane-cluster), each step timed.
	@if [ "$(origin BERTH_STEPS_FILE)" = file ]; then hack/steps.sh reset; fi
	$(STEP) control-plane $(SUBMAKE) control-plane $(GINKGO)
	$(SUBMAKE) -j2 test-lane-static test-lane-cluster
	$(STEP) test-examples $(SUBMAKE) test-examples
	$(STEP) bench-quick $(SUBMAKE) bench-quick
	@hack/steps.sh table

# The checks that need no cluster, mostly compiling and analysing: they run
# beside the cluster lane, which mostly waits on its apiservers. They run
# niced, so the cluster lane's timed specs come first.
.PHONY: test-lane-static
test-lane-static:
	$(STEP) verify nice -n 10 $(SUBMAKE) verify
	$(STEP) lint nice -n 10 $(SUBMAKE) lint
	$(STEP) test-rules nice -n 10 $(SUBMAKE) test-rules
	$(STEP) test-unit nice -n 10 $(SUBMAKE) test-unit
	$(STEP) test-release nice -n 10 $(SUBMAKE) test-release

# The chart and the envtest suites. While the suites run, what bench-quick
# (and, under CI, make test-e2e) needs is built at the lowest priority, on
# the CPU the suites leave idle.
.PHONY: test-lane-cluster
test-lane-cluster:
	$(STEP) prebuild nice -n 19 $(SUBMAKE) prebuild & prebuild=$$!; \
	$(STEP) helm-lint $(SUBMAKE) helm-lint && $(STEP) test-integration $(SUBMAKE) test-integration-run; rc=$$?; \
	wait $$prebuild && exit $$rc

# What bench-quick needs beyond the control plane, and under CI what make
# test-e2e needs too; their targets build whatever is still missing.
.PHONY: prebuild
prebuild:
	hack/control-plane.sh kube-scheduler
	$(SUBMAKE) build
	$(if $(CI),hack/local-cluster.sh build && hack/control-plane.sh kubectl)

.PHONY: test-unit
# go vet's analyzers run in make lint (golangci-lint's govet, a superset
# of the ones go test runs), so go test does not run them again.
test-unit: ## Run the unit tests.
	go test -count=1 -vet=off $(UNIT_PACKAGES)

# The examples are Go modules of their own (examples/<name>/go.mod), built against this checkout.
EXAMPLES = $(patsubst %/go.mod,%,$(wildcard examples/*/go.mod))

.PHONY: test-examples
test-examples: control-plane ## Build and vet every example in examples/ (each its own Go module) and run its unit and envtest specs.
	@for dir in $(EXAMPLES); do \
		echo "test-examples: $$dir"; \
		(cd $$dir && go vet ./... && go build -o /dev/null . && go test -count=1 ./...) || exit 1; \
	done

# The release build for this machine's platform only: the other three
# compile everything again for their platforms, which make test leaves to
# make release-snapshot. test/imagebuild has compiled it with the same flags.
.PHONY: test-release
test-release: ## Build and check this platform's release archive (make release-snapshot's, checksum, files and berth version) into bin/release-check.
	PLATFORMS=$$(go env GOOS)/$$(go env GOARCH) CHECK=1 hack/release.sh $(BIN)/release-check

.PHONY: test-rules
test-rules: $(PROMTOOL) ## Check the chart's alerting rules and run their promtool unit tests (test/prometheus).
	$(PROMTOOL) check rules $(CHART)/files/monitoring/berth-rules.yaml
	$(PROMTOOL) test rules test/prometheus/rules_test.yaml

# Each envtest suite runs in this many processes, each with apiservers of
# its own: the suites mostly wait on them, so more processes than cores pay.
INTEGRATION_PROCS ?= 3

.PHONY: test-integration
test-integration: control-plane helm-lint $(GINKGO) ## Run the envtest + ginkgo integration suites against real apiservers (INTEGRATION_PROCS processes a suite, default 3).
	$(SUBMAKE) test-integration-run

.PHONY: test-integration-run
test-integration-run:
	KUBE_CACHE_MUTATION_DETECTOR=true $(GINKGO) -r --procs=$(INTEGRATION_PROCS) $(if $(CI),--no-color) --timeout=30m --poll-progress-after=120s test/integration

.PHONY: test-faults
test-faults: $(GINKGO) ## Run the fault-injection suite (test/faults) on a local cluster: every scenario, each printing its figures.
	hack/local-cluster.sh build
	BERTH_BIN_DIR=$(BIN) $(GINKGO) --procs=1 $(if $(CI),--no-color) --timeout=60m --poll-progress-after=120s -v test/faults

.PHONY: test-e2e
test-e2e: $(GINKGO) $(HELM) $(PROMTOOL) ## Run the end-to-end suites on local clusters: Berth's behaviour (test/e2e, a real Prometheus scraping Berth included), its installs with Helm and kustomize run as a kubelet would (test/e2e/install, needs root), and the fault scenarios labelled ci (test/faults), each step timed.
	@if [ "$(origin BERTH_STEPS_FILE)" = file ]; then hack/steps.sh reset; fi
	$(STEP) e2e-build bash -c 'hack/local-cluster.sh build && hack/control-plane.sh kubectl'
	$(STEP) test-e2e-suites env BERTH_BIN_DIR=$(BIN) $(GINKGO) -r --procs=1 $(if $(CI),--no-color) --timeout=30m --poll-progress-after=120s -v test/e2e
	$(STEP) test-faults-ci env BERTH_BIN_DIR=$(BIN) $(GINKGO) --procs=1 $(if $(CI),--no-color) --timeout=45m --poll-progress-after=120s --label-filter=ci -v test/faults
	@hack/steps.sh table

.PHONY: test-differential
test-differential: control-plane $(GINKGO) ## Play generated scenarios (seeds SEED.. SEED+N-1, default 1 and 20; each seed a scenario of PodGroups, through both PodGroup doors, and one of a CompositePodGroup hierarchy; FOCUS=hierarchy plays only the latter; each seed is also played under workloads.SigningProfile, where opportunistic batching reuses searches, with Berth batching on and off, FOCUS=signing) on kube-scheduler v1.37.1 (RUNS times, default 2) and on Berth, on fresh clusters, and list every difference and broken hard constraint with the seed that reproduces it. Not part of make test, which plays the recorded seeds (workloads.CISeeds, workloads.CIHierarchySeeds).
	hack/control-plane.sh kube-scheduler
	BERTH_DIFFERENTIAL_SEED=$(or $(SEED),1) BERTH_DIFFERENTIAL_N=$(or $(N),20) BERTH_DIFFERENTIAL_RUNS=$(or $(RUNS),2) \
		$(GINKGO) --procs=$(INTEGRATION_PROCS) --keep-going --label-filter=differential $(if $(FOCUS),--focus='$(FOCUS)') $(if $(CI),--no-color) --timeout=$(or $(TIMEOUT),4h) --poll-progress-after=300s test/integration/workloads

.PHONY: workloads-reference
workloads-reference: control-plane ## Re-record test/workloads/testdata: every PodGroup scenario run twice against kube-scheduler v1.37.1 (not part of make test; WORKLOADS=a,b runs only those scenarios).
	hack/control-plane.sh kube-scheduler
	BERTH_WORKLOADS_RECORD=1 BERTH_WORKLOADS_SCENARIOS=$(WORKLOADS) go test -count=1 -timeout=90m -v -run '^TestReference$$' ./test/workloads/reference

# A well-formed digest for helm-lint's image.digest case.
HELM_LINT_DIGEST := 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

.PHONY: helm-lint
helm-lint: $(HELM) ## Lint and render the Helm chart; fail when its CRDs or RBAC rules lag config/ (make manifests syncs them).
	@diff -r -q config/crd/bases $(CHART)/files/crds && diff -q config/rbac/role.yaml $(CHART)/files/rbac/role.yaml \
		|| { echo "charts/berth/files lags config/; run 'make helm-sync' and commit"; exit 1; }
	$(HELM) lint --strict --kube-version $(K8S_VERSION) $(CHART)
	$(HELM) lint --strict --kube-version $(K8S_VERSION) $(CHART) --set replicas=1,leaderElection.enabled=false,webhook.enabled=false,metrics.enabled=false,flowControl.enabled=false
	$(HELM) lint --strict --kube-version $(K8S_VERSION) $(CHART) --set webhook.certManager.enabled=false,webhook.secretName=berth-tls,webhook.caBundle=Y2E=,metrics.secretName=berth-metrics-tls,metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.tokenSecret=prometheus-token
	$(HELM) lint --strict --kube-version $(K8S_VERSION) $(CHART) --set webhook.certManager.enabled=false,webhook.secretName=berth-tls,webhook.caBundle=Y2E=,metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.insecureSkipVerify=true
	$(HELM) lint --strict --kube-version $(K8S_VERSION) $(CHART) --set defaultProfile=,rbac.aggregateClusterRoles=false,tests.enabled=false,schedulerName=system-scheduler
	@# As a subchart (a parent's global values), renamed, pinned by digest, with extra env and volumes.
	$(HELM) lint --strict --kube-version $(K8S_VERSION) $(CHART) --set global.imageRegistry=registry.example.com \
		--set nameOverride=scheduler,fullnameOverride=platform-scheduler,image.digest=sha256:$(HELM_LINT_DIGEST) \
		--set-json 'extraEnv=[{"name":"GOMEMLIMIT","value":"900MiB"}]' \
		--set-json 'extraVolumes=[{"name":"extra","configMap":{"name":"berth-extra"}}]' \
		--set-json 'extraVolumeMounts=[{"name":"extra","mountPath":"/etc/berth-extra","readOnly":true}]'
	@out=$$($(HELM) template berth $(CHART) --kube-version $(K8S_VERSION) --set nameOverride=scheduler,fullnameOverride=platform-scheduler,image.digest=sha256:$(HELM_LINT_DIGEST) \
		--set-json 'extraEnv=[{"name":"GOMEMLIMIT","value":"900MiB"}]'); \
	for want in 'name: platform-scheduler-manager' 'app.kubernetes.io/name: scheduler' 'image: "ghcr.io/berth-io/berth@sha256:$(HELM_LINT_DIGEST)"' \
		'name: GOMEMLIMIT' 'name: platform-scheduler-view' 'name: platform-scheduler-test'; do \
		grep -qF -- "$$want" <<<"$$out" || { echo "helm template with overrides lacks: $$want"; exit 1; }; done
	@if out=$$($(HELM) template berth $(CHART) --kube-version $(K8S_VERSION) --set image.digest=latest 2>&1) \
		|| ! grep -q "/image/digest.*does not match" <<<"$$out"; then echo "image.digest=latest must be refused by the schema"; exit 1; fi
	@if $(HELM) template berth $(CHART) --kube-version $(K8S_VERSION) --set defaultProfile= | grep -q 'helm.sh/hook: test'; then echo "no helm test without a profile to schedule it"; exit 1; fi
	@mkdir -p $(dir $(BERTH_CHART_RENDERED))
	$(HELM) template berth $(CHART) --namespace berth-system --kube-version $(K8S_VERSION) \
		--set metrics.serviceMonitor.enabled=true,metrics.prometheusRule.enabled=true,metrics.grafanaDashboard.enabled=true \
		--set metrics.prometheusServiceAccount.name=prometheus-k8s,metrics.prometheusServiceAccount.namespace=monitoring > $(BERTH_CHART_RENDERED)

.PHONY: helm-sync
helm-sync: ## Copy the generated CRDs and ClusterRole rules from config/ into the Helm chart.
	rm -f $(CHART)/files/crds/*.yaml
	cp config/crd/bases/*.yaml $(CHART)/files/crds/
	cp config/rbac/role.yaml $(CHART)/files/rbac/role.yaml

.PHONY: bench
bench: control-plane build ## Go benchmarks (scheduler hot paths, profile apply → first bind), then Berth (with and without Scheduled events) vs kube-scheduler vs the null binders (SchedulingBasic, 5,000 nodes / 10,000 pods, ~5 min; BENCH_ARGS=--quick: 1,000/1,000), then DynamicResources (500 nodes × 8 devices, 4,000 pods each with a claim; BENCH_DRA_ARGS), then Berth with and without a shadow profile at 100% sampling (SchedulingBasic; BENCH_SHADOW_ARGS).
	go test -run='^$$' -bench=. -benchmem ./scheduler/...
	go test -run='^$$' -bench=ApplyToFirstBind -benchtime=20x ./test/perf/profileapply
	hack/control-plane.sh kube-scheduler
	go build -o $(BIN)/bench ./test/perf/cmd/bench
	$(BIN)/bench --berth-bin=$(BIN)/berth --k8s-bin-dir=$(BIN)/k8s --nodes=5000 --pods=10000 \
		--out-json=$(BIN)/bench.json --out-md=$(BIN)/bench.md $(BENCH_ARGS)
	$(BIN)/bench --berth-bin=$(BIN)/berth --k8s-bin-dir=$(BIN)/k8s --workloads=DynamicResources --nodes=500 --pods=4000 \
		--schedulers=berth,kube-scheduler,null-binder --out-json=$(BIN)/bench-dra.json --out-md=$(BIN)/bench-dra.md $(BENCH_DRA_ARGS)
	$(BIN)/bench --berth-bin=$(BIN)/berth --k8s-bin-dir=$(BIN)/k8s --nodes=5000 --pods=10000 \
		--schedulers=berth,berth-shadow --out-json=$(BIN)/bench-shadow.json --out-md=$(BIN)/bench-shadow.md $(BENCH_SHADOW_ARGS)

BASE ?= 30a5b5e

.PHONY: bench-compare
bench-compare: control-plane ## This build against BASE (a git ref, default v0.1 = 30a5b5e), alternating round by round on one machine: ratios of pods/s and CPU per pod per workload (NODES=5000 PODS=10000 REPEAT=3 WORKLOADS=SchedulingBasic,PodAntiAffinity,TopologySpreading; BENCH_ARGS). BASE is built once in bin/bench-base/<sha>. Minutes per round; not part of make test.
	NODES=$(or $(NODES),5000) PODS=$(or $(PODS),10000) REPEAT=$(or $(REPEAT),3) WORKLOADS=$(WORKLOADS) K8S_BIN=$(K8S_BIN) \
		hack/bench-compare.sh cluster $(BASE)

.PHONY: bench-compare-go
bench-compare-go: ## The scheduler's hot-path Go benchmarks (GO_BENCH, default BenchmarkSchedulePod and BenchmarkScheduleOneCycle) of this build against BASE, alternating GO_COUNT=6 times, compared with benchstat; no cluster, a few minutes.
	GO_BENCH='$(GO_BENCH)' GO_COUNT=$(GO_COUNT) GO_BENCHTIME=$(GO_BENCHTIME) hack/bench-compare.sh go $(BASE)

.PHONY: bench-quick
bench-quick: control-plane build ## Prove the throughput harness works (make test runs it): every scheduler under test (Berth with and without Scheduled events, kube-scheduler, the null binder with and without them) binds 1,000 pods on 1,000 nodes and 5 s of steady arrival; fails if any pod is left unbound. No timing is asserted.
	hack/control-plane.sh kube-scheduler
	go build -o $(BIN)/bench ./test/perf/cmd/bench
	$(BIN)/bench --quick --berth-bin=$(BIN)/berth --k8s-bin-dir=$(K8S_BIN) \
		--out-json=$(BIN)/bench-quick.json --out-md=$(BIN)/bench-quick.md

##@ Build

# The image docker-build builds and docker-push pushes, and the tool that does it.
IMG ?= ghcr.io/berth-io/berth:dev
CONTAINER_TOOL ?= docker
VERSION ?= dev

.PHONY: build
build: ## Build the berth binary into bin/.
	go build -o $(BIN)/berth ./cmd/berth

.PHONY: release-snapshot
release-snapshot: ## Build the release archives of berth (linux and darwin on amd64 and arm64, VERSION defaulting to the chart's appVersion) and their checksum file into bin/release, and check them; nothing is published.
	CHECK=1 hack/release.sh $(BIN)/release

.PHONY: docker-build
docker-build: ## Build the image IMG (default ghcr.io/berth-io/berth:dev) with CONTAINER_TOOL (docker); VERSION is the build-arg that berth version prints.
	$(CONTAINER_TOOL) build -t $(IMG) --build-arg VERSION=$(VERSION) --build-arg COMMIT=$$(git rev-parse HEAD) .

.PHONY: docker-push
docker-push: ## Push the image IMG with CONTAINER_TOOL.
	$(CONTAINER_TOOL) push $(IMG)

.PHONY: run
run: ## Try Berth: a local cluster (NODES=10 kwok fake nodes), the samples and berth manager in the foreground; Ctrl-C stops it.
	hack/local-cluster.sh

.PHONY: control-plane
control-plane: ## Build etcd and kube-apiserver v1.37.1 from Go modules into bin/k8s.
	hack/control-plane.sh etcd kube-apiserver

$(CONTROLLER_GEN): hack/tools/codegen/go.mod hack/tools/codegen/go.sum
	cd hack/tools/codegen && go build -o $(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen

$(PROMTOOL): hack/prometheus.sh
	hack/prometheus.sh

$(HELM): hack/tools/helm/go.mod hack/tools/helm/go.sum
	cd hack/tools/helm && go build -ldflags "-s -w" -o $(HELM) helm.sh/helm/v3/cmd/helm

$(GOLANGCI_LINT): hack/tools/golangci-lint/go.mod hack/tools/golangci-lint/go.sum
	cd hack/tools/golangci-lint && go build -o $(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

$(ACTIONLINT): hack/tools/actionlint/go.mod hack/tools/actionlint/go.sum
	cd hack/tools/actionlint && go build -o $(ACTIONLINT) github.com/rhysd/actionlint/cmd/actionlint

$(GOVULNCHECK): hack/tools/vuln/go.mod hack/tools/vuln/go.sum
	cd hack/tools/vuln && go build -o $(GOVULNCHECK) golang.org/x/vuln/cmd/govulncheck

$(VULNDB_INDEXDB): hack/tools/vuln/go.mod hack/tools/vuln/go.sum
	cd hack/tools/vuln && go build -o $(VULNDB_INDEXDB) golang.org/x/vulndb/cmd/indexdb

$(GINKGO): go.mod go.sum
	go build -o $(GINKGO) github.com/onsi/ginkgo/v2/ginkgo
