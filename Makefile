# gateway2tyk: build, demo and test. Recipes are plain sh (no pipefail).

GO             ?= go
BIN            := $(CURDIR)/bin
KUSTOMIZE_VERSION := v5.8.2
# Targets are relative paths (so `make bin/kustomize` works); the tests get absolute ones.
KUSTOMIZE      := bin/kustomize
GATEWAY2TYK    := bin/gateway2tyk
EXAMPLE        ?= examples/basic
# Static, reproducible binaries: the same flags in the Dockerfile's build stage (checked by check-dockerfile).
GOBUILDFLAGS   := -trimpath -buildvcs=false
# The image: `make image` needs a Docker engine (the docker CLI alone is not enough).
DOCKER         ?= docker
IMAGE          ?= gateway2tyk:dev
GO_VERSION     := $(shell sed -n 's/^go //p' go.mod)

.DEFAULT_GOAL := build

.PHONY: help build systems demo test check vet fmt-check go-test go-test-conformance golden e2e-conformance e2e-tyk e2e-kube e2e-argocd tyk-source e2e-tyk-source check-dockerfile image image-test bench bench-diff bench-pipelines clean

help: ## Show the targets
	@echo "make build          build bin/gateway2tyk"
	@echo "make bin/kustomize  install kustomize $(KUSTOMIZE_VERSION) into bin/ (when absent)"
	@echo "make demo           render $(EXAMPLE) with kustomize and the function, and print the APIs"
	@echo "make test           go vet, gofmt check, go test (with bin/kustomize, bin/gateway2tyk and the real Tyk Gateway)"
	@echo "make systems        build every real system the tests run into bin/ (once each), printing what each took"
	@echo "make check          the inner loop: go vet, gofmt check and every test that needs no real system (go test -short)"
	@echo "make golden         rewrite every golden file from what the code now writes (then read the diff)"
	@echo "make e2e-tyk        only the tests against a real Tyk Gateway (builds bin/tyk once; needs redis-server)"
	@echo "make e2e-kube       only the tests against a real kube-apiserver and etcd (builds them into bin/ once)"
	@echo "make e2e-argocd     only the tests against the real argocd-cmp-server and Argo CD's health checks (builds them once)"
	@echo "make e2e-conformance  the upstream Gateway API conformance suite against a real API server and Tyk (PROFILE=\"operator gateway-api\")"
	@echo "make e2e-tyk-source TYK_SRC=dir TYK_GATEWAY_VERSION=vX.Y.Z  the same tests on a Gateway built from Tyk's source"
	@echo "make check-dockerfile  check that the Dockerfile builds what make build and bin/kustomize build"
	@echo "make image          docker build the image $(IMAGE) (needs a Docker engine)"
	@echo "make image-test     run the built image $(IMAGE) as nobody with no network, on $(EXAMPLE)"
	@echo "make bench          time gateway2tyk against a no-op KRM function on generated fleets (SIZES=\"1000 10000\")"
	@echo "make bench-diff     time gateway2tyk diff of two fleets differing in CHANGED routes against one render"
	@echo "make bench-pipelines  time every documented pipeline with and without gateway2tyk (SIZES=\"1000 5000 10000\")"
	@echo "make clean          remove bin/"
	@echo "make fuzz           run each fuzz target for FUZZTIME (default $(FUZZTIME)), one after another"

# The Go build decides what is out of date, so build always runs it.
build:
	CGO_ENABLED=0 $(GO) build $(GOBUILDFLAGS) -o $(GATEWAY2TYK) ./cmd/gateway2tyk

# Installed only when absent. To change the version, edit KUSTOMIZE_VERSION and run `make clean`.
$(KUSTOMIZE):
	mkdir -p $(BIN)
	CGO_ENABLED=0 GOBIN=$(BIN) $(GO) install $(GOBUILDFLAGS) sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)

# A real open-source Tyk Gateway for the tests: the one build the Go module proxy serves (the release-5.4 line,
# MPL-2.0). `go install` cannot fetch it (the proxy refuses the module's version list), so it is built in a module of
# its own under bin/. Built once (about 3 minutes on 2 cores), then kept; `make clean` removes it. Its templates
# directory is copied beside it, since the Gateway reads its error templates at start.
TYK            := bin/tyk
TYK_TEMPLATES_DIR := $(BIN)/tyk-templates
TYK_MODULE     := github.com/TykTechnologies/tyk
TYK_VERSION    := v1.9.2-0.20240626094223-9b62c317f33a
$(TYK):
	rm -rf $(BIN)/tyk-build $(TYK_TEMPLATES_DIR)
	mkdir -p $(BIN)/tyk-build
	cd $(BIN)/tyk-build && $(GO) mod init gateway2tyk-tyk-build >/dev/null 2>&1 && \
		$(GO) get $(TYK_MODULE)@$(TYK_VERSION) && \
		$(GO) build -trimpath -o $(BIN)/tyk.tmp $(TYK_MODULE) && \
		cp -R "$$($(GO) list -m -f '{{.Dir}}' $(TYK_MODULE))/templates" $(TYK_TEMPLATES_DIR) && \
		chmod -R u+w $(TYK_TEMPLATES_DIR) && rm -f $(TYK_TEMPLATES_DIR)/*.go
	mv $(BIN)/tyk.tmp $(TYK)
	rm -rf $(BIN)/tyk-build

# A real kube-apiserver and etcd for the tests (e2e/realkube): built from the modules pinned in tools/kube-apiserver
# and tools/etcd (each its own go.mod and go.sum, since both projects replace their sibling modules with directories
# of their repositories and `go install` refuses that). Built once (kube-apiserver: about 15 CPU-minutes cold), then
# kept; `make clean` removes them. The API server reports KUBERNETES_VERSION (the version is set at link time, as
# Kubernetes' own build does).
KUBE_APISERVER := bin/kube-apiserver
ETCD           := bin/etcd
KUBERNETES_VERSION := v1.37.2
$(KUBE_APISERVER): tools/kube-apiserver/go.mod tools/kube-apiserver/go.sum
	mkdir -p $(BIN)
	cd tools/kube-apiserver && CGO_ENABLED=0 $(GO) build -trimpath \
		-ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$(KUBERNETES_VERSION) -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37" \
		-o $(BIN)/kube-apiserver.tmp k8s.io/kubernetes/cmd/kube-apiserver
	mv $(BIN)/kube-apiserver.tmp $(KUBE_APISERVER)
# The real kubectl, for the test that shows what `kubectl get` prints of the status the sync writes: from the same
# module as the API server (k8s.io/kubernetes/cmd/kubectl); with the API server's packages in the build cache it
# adds about 40 CPU-seconds; cold (an empty build cache) 3.6 CPU-minutes (175 s user, 41 s system; 14.5 minutes
# niced on 2 busy cores).
KUBECTL := bin/kubectl
$(KUBECTL): tools/kube-apiserver/go.mod tools/kube-apiserver/go.sum
	mkdir -p $(BIN)
	cd tools/kube-apiserver && CGO_ENABLED=0 $(GO) build -trimpath \
		-ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$(KUBERNETES_VERSION) -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37" \
		-o $(BIN)/kubectl.tmp k8s.io/kubernetes/cmd/kubectl
	mv $(BIN)/kubectl.tmp $(KUBECTL)
$(ETCD): tools/etcd/go.mod tools/etcd/go.sum
	mkdir -p $(BIN)
	cd tools/etcd && CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(BIN)/etcd.tmp go.etcd.io/etcd/server/v3
	mv $(BIN)/etcd.tmp $(ETCD)

# The tests against the real API server alone (e2e/realkube: parity of the render's judgement with the API
# server's, and the API server's acceptance of every output).
REAL_KUBE_TESTS := ^TestRealKube
e2e-kube: build $(KUBE_APISERVER) $(ETCD) $(KUBECTL)
	GATEWAY2TYK_REAL_KUBE=required GATEWAY2TYK=$(CURDIR)/$(GATEWAY2TYK) KUBECTL=$(CURDIR)/$(KUBECTL) \
		$(GO) test -count=1 -run '$(REAL_KUBE_TESTS)' ./e2e/... ./sync/...

# Argo CD v3.6.1 for the tests (e2e/argocdcmp_test.go, e2e/argocdhealth_test.go): argo-cd's own cmd (it runs as
# the CMP server when its file is named argocd-cmp-server) and argocd-cmpdriver, which plays the repo-server and
# the controller with Argo CD's code. Both from tools/argocd, a module of its own with a checked-in go.mod and
# go.sum: argo-cd needs Go 1.27 (the project stays on Go 1.26), so it alone is built with ARGOCD_GOTOOLCHAIN (the
# toolchain comes from the Go module proxy), and it replaces its gitops-engine with a directory, which
# `go install` refuses. Built once (the server: about 13 minutes niced on 2 busy cores), then kept.
ARGOCD_GOTOOLCHAIN := go1.27.3
ARGOCD_CMP_SERVER  := bin/argocd-cmp-server
ARGOCD_CMPDRIVER   := bin/argocd-cmpdriver
$(ARGOCD_CMP_SERVER): tools/argocd/go.mod tools/argocd/go.sum
	mkdir -p $(BIN)
	cd tools/argocd && CGO_ENABLED=0 GOTOOLCHAIN=$(ARGOCD_GOTOOLCHAIN) $(GO) build -trimpath -ldflags "-s -w" \
		-o $(BIN)/argocd-cmp-server.tmp github.com/argoproj/argo-cd/v3/cmd
	mv $(BIN)/argocd-cmp-server.tmp $(ARGOCD_CMP_SERVER)
$(ARGOCD_CMPDRIVER): tools/argocd/go.mod tools/argocd/go.sum tools/argocd/cmpdriver/main.go
	mkdir -p $(BIN)
	cd tools/argocd && CGO_ENABLED=0 GOTOOLCHAIN=$(ARGOCD_GOTOOLCHAIN) $(GO) build -trimpath -ldflags "-s -w" \
		-o $(BIN)/argocd-cmpdriver.tmp ./cmpdriver
	mv $(BIN)/argocd-cmpdriver.tmp $(ARGOCD_CMPDRIVER)

# The tests against the real argocd-cmp-server and Argo CD's health checks alone.
REAL_ARGOCD_TESTS := ^TestRealArgoCD
ARGOCD_ENV = GATEWAY2TYK_REAL_ARGOCD=required ARGOCD_CMP_SERVER=$(CURDIR)/$(ARGOCD_CMP_SERVER) \
	ARGOCD_CMPDRIVER=$(CURDIR)/$(ARGOCD_CMPDRIVER)
e2e-argocd: build $(KUSTOMIZE) $(ARGOCD_CMP_SERVER) $(ARGOCD_CMPDRIVER)
	$(ARGOCD_ENV) KUSTOMIZE=$(CURDIR)/$(KUSTOMIZE) GATEWAY2TYK=$(CURDIR)/$(GATEWAY2TYK) \
		$(GO) test -count=1 -run '$(REAL_ARGOCD_TESTS)' ./e2e/

# The tests against the real Gateway alone. Redis is Debian's redis-server (.ci/run installs it).
# TYK_GATEWAY, TYK_TEMPLATES (and TYK_GATEWAY_VERSION) run them, and make test's, against another Gateway build.
# TESTFLAGS go to go test (TESTFLAGS=-v prints the counts docs/tyk-releases.md records).
REAL_TYK_TESTS := ^TestRealTyk
TYK_GATEWAY    ?= $(CURDIR)/$(TYK)
TESTFLAGS      ?=
TYK_TEMPLATES  ?= $(TYK_TEMPLATES_DIR)
REAL_TYK_RUN    = GATEWAY2TYK_REAL_TYK=required GATEWAY2TYK=$(CURDIR)/$(GATEWAY2TYK) TYK_GATEWAY=$(TYK_GATEWAY) \
		TYK_TEMPLATES=$(TYK_TEMPLATES) TYK_GATEWAY_VERSION=$(TYK_GATEWAY_VERSION) \
		$(GO) test -count=1 $(TESTFLAGS) -run '$(REAL_TYK_TESTS)' ./e2e/... ./conformance/... ./sync/...
e2e-tyk: build $(TYK)
	$(REAL_TYK_RUN)

# The same tests against a Gateway built from a Tyk source tree the user gives (for example `git archive v5.14.0`
# of github.com/TykTechnologies/tyk, unpacked outside this repository): TYK_SRC=dir TYK_GATEWAY_VERSION=v5.14.0
# (a Gateway built from source reports v5.5.0-dev on /hello). Built once per source directory into
# bin/tyk-src/<its name>/ (tyk and templates/; about 12 minutes on 2 cores, cold), then kept.
# docs/tyk-releases.md records the releases checked this way.
TYK_SRC        ?=
TYK_SRC_BIN     = $(BIN)/tyk-src/$(notdir $(abspath $(TYK_SRC)))
tyk-source:
	@if [ -z "$(TYK_SRC)" ] || [ ! -f "$(TYK_SRC)/go.mod" ] || [ ! -d "$(TYK_SRC)/templates" ]; then \
		echo "make $@: TYK_SRC=dir must name a Tyk Gateway source tree (go.mod and templates/ at its root)" >&2; exit 2; fi
	@if [ -x $(TYK_SRC_BIN)/tyk ]; then echo "tyk-source: $(TYK_SRC_BIN)/tyk is built (make clean, or remove it, to build again)"; else \
		set -e; rm -rf $(TYK_SRC_BIN); mkdir -p $(TYK_SRC_BIN); \
		cd $(TYK_SRC) && $(GO) build -trimpath -o $(TYK_SRC_BIN)/tyk.tmp . ; \
		cp -R $(abspath $(TYK_SRC))/templates $(TYK_SRC_BIN)/templates; chmod -R u+w $(TYK_SRC_BIN)/templates; \
		rm -f $(TYK_SRC_BIN)/templates/*.go; mv $(TYK_SRC_BIN)/tyk.tmp $(TYK_SRC_BIN)/tyk; fi
e2e-tyk-source: TYK_GATEWAY = $(TYK_SRC_BIN)/tyk
e2e-tyk-source: TYK_TEMPLATES = $(TYK_SRC_BIN)/templates
e2e-tyk-source: build tyk-source
	@if [ -z "$(TYK_GATEWAY_VERSION)" ]; then \
		echo "make $@: TYK_GATEWAY_VERSION=vX.Y.Z must say which release TYK_SRC is (its /hello says v5.5.0-dev)" >&2; exit 2; fi
	$(REAL_TYK_RUN)

# The upstream Gateway API conformance suite (sigs.k8s.io/gateway-api/conformance v1.6.3, unmodified) against the
# render, a real API server and a real Tyk Gateway: conformance/upstream, a module of its own (the suite brings
# controller-runtime and more, which the project's go.mod must not carry; go test ./... and go vet ./... of the
# project do not enter it). Its backend, echo-basic, is built from the suite's module (about 15 s) and kept.
# PROFILE names the render profiles to run (each on a cluster and a Gateway of its own); TYK_GATEWAY, TYK_TEMPLATES
# and TYK_GATEWAY_VERSION run it against another Gateway build, as e2e-tyk does. The run's reports go to
# bin/conformance-reports/ and are held to the checked-in conformance/reports/; GATEWAY2TYK_CONFORMANCE_REPORT=write
# writes them there instead (then TestReportsReadme's tables in README.md and docs/conformance.md: the same variable rewrites them).
CONFORMANCE_MODULE := conformance/upstream
ECHO_BASIC     := bin/echo-basic
PROFILE        ?= operator gateway-api
CONFORMANCE_TIMEOUT ?= 80m
$(ECHO_BASIC): $(CONFORMANCE_MODULE)/go.mod $(CONFORMANCE_MODULE)/go.sum
	mkdir -p $(BIN)
	cd $(CONFORMANCE_MODULE) && CGO_ENABLED=0 $(GO) build $(GOBUILDFLAGS) -o $(BIN)/echo-basic.tmp sigs.k8s.io/gateway-api/conformance/echo-basic
	mv $(BIN)/echo-basic.tmp $(ECHO_BASIC)
CONFORMANCE_ENV = PROFILE="$(PROFILE)" GATEWAY2TYK_REAL_KUBE=required GATEWAY2TYK_REAL_TYK=required \
	GATEWAY2TYK=$(CURDIR)/$(GATEWAY2TYK) ECHO_BASIC=$(CURDIR)/$(ECHO_BASIC) KUBE_APISERVER=$(CURDIR)/$(KUBE_APISERVER) \
	ETCD=$(CURDIR)/$(ETCD) TYK_GATEWAY=$(TYK_GATEWAY) TYK_TEMPLATES=$(TYK_TEMPLATES) TYK_GATEWAY_VERSION=$(TYK_GATEWAY_VERSION)
e2e-conformance: build $(ECHO_BASIC) $(TYK) $(KUBE_APISERVER) $(ETCD)
	cd $(CONFORMANCE_MODULE) && $(CONFORMANCE_ENV) $(GO) test -count=1 -timeout $(CONFORMANCE_TIMEOUT) $(TESTFLAGS) \
		-run '^TestRealConformance$$' .
# make test runs every test of the module: the suite, and the checks of the checked-in reports and the tables of README.md and docs/conformance.md.
go-test-conformance: build $(ECHO_BASIC) $(TYK) $(KUBE_APISERVER) $(ETCD)
	cd $(CONFORMANCE_MODULE) && $(CONFORMANCE_ENV) $(GO) test -timeout $(CONFORMANCE_TIMEOUT) ./...

# Every real system make test runs, built into bin/ one after another (each only when absent), with the seconds each
# took: start it in the background at the start of a session (nohup make systems > systems.log &) and work
# meanwhile. docs/development.md records the cold times on a fresh 2-core machine. The Gateways built from Tyk's
# source are not among them (make tyk-source TYK_SRC=...).
SYSTEMS = $(KUSTOMIZE) $(TYK) $(ECHO_BASIC) $(ETCD) $(KUBE_APISERVER) $(KUBECTL) $(ARGOCD_CMP_SERVER) $(ARGOCD_CMPDRIVER) $(MERMAID_JS)
systems: build
	@total=0; for s in $(SYSTEMS); do \
		if [ -e "$$s" ]; then echo "systems: $$s is built"; continue; fi; \
		start=$$(date +%s); $(MAKE) --no-print-directory "$$s" || exit 1; took=$$(( $$(date +%s) - start )); \
		total=$$(( total + took )); echo "systems: $$s built in $$took s"; \
	done; echo "systems: every real system is in $(BIN) ($$total s built now)"

demo: build $(KUSTOMIZE)
	PATH=$(BIN):$$PATH kustomize build --enable-alpha-plugins --enable-exec $(EXAMPLE)

test: build $(KUSTOMIZE) $(TYK) $(KUBE_APISERVER) $(ETCD) $(KUBECTL) $(ARGOCD_CMP_SERVER) $(ARGOCD_CMPDRIVER) $(ECHO_BASIC) vet fmt-check go-test go-test-conformance

# The inner loop (docs/development.md): vet, gofmt and every test that needs no real system, in minutes. The e2e
# packages are all real systems (kustomize, Tyk, the API server, Argo CD); -short skips the real Tyk Gateway and
# API server that sync's tests start (localproc.Short). Nothing is built into bin/; the tests that would use a tool
# found there (kustomize, Graphviz, Mermaid) run when it is there. make test runs everything, without -short.
check: vet fmt-check
	@race=$$($(GO) list $(RACE_PKGS)) && plain=$$($(GO) list ./... | grep -v '/e2e' | grep -vxF "$$race") && \
	$(GO) test -short $$plain && $(GO) test -short -race $$race

vet:
	$(GO) vet ./...
	cd $(CONFORMANCE_MODULE) && $(GO) vet ./...

fmt-check:
	@echo "gofmt -l (every .go file but testdata)"
	@unformatted=$$(find . -name '*.go' -not -path './.git/*' -not -path './bin/*' -not -path '*/testdata/*' -exec gofmt -l {} +); \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt: these files are not formatted (run gofmt -w):"; \
		echo "$$unformatted"; \
		exit 1; \
	fi

# Mermaid's own parser for the graph tests (fn/graph/graphtest.MermaidJS): pinned npm packages, installed from the
# npm registry once, then kept (`make clean` removes them).
MERMAID_JS     := bin/mermaid-js
MERMAID_PKGS   := mermaid@11.17.2 jsdom@29.1.1
$(MERMAID_JS):
	mkdir -p $(BIN)
	npm install --prefix $(MERMAID_JS).tmp --no-audit --no-fund --silent $(MERMAID_PKGS)
	mv $(MERMAID_JS).tmp $(MERMAID_JS)

# make test's go test runs through tools/testreport: it prints each package's result (a failed test's output in
# full), then every test that skipped and why, and fails on any skip that tools/testreport/may-skip.txt does not
# allow: a skip is a check that did not run, and the run would be green without it. The packages whose code runs
# goroutines (krmio's parallel writers, parallel and the stages that use it, sync's concurrent calls, the CLI's
# kustomize pipe) run with the race detector; the rest without, since -race builds every dependency again and
# slows each test several times over. The closing line is "tests: N passed, N failed, N skipped".
RACE_PKGS       := ./fn ./fn/krmio ./fn/internal/parallel ./fn/read ./fn/translate ./fn/kustomization ./sync/... ./cmd/gateway2tyk
# The e2e package runs the real systems: longer than go test's default 10 minutes on 2 busy cores.
GO_TEST_TIMEOUT ?= 60m
TEST_ENV = $(ARGOCD_ENV) KUSTOMIZE=$(CURDIR)/$(KUSTOMIZE) GATEWAY2TYK=$(CURDIR)/$(GATEWAY2TYK) \
	GATEWAY2TYK_REAL_TYK=required GATEWAY2TYK_REAL_KUBE=required MERMAID_JS_DIR=$(CURDIR)/$(MERMAID_JS) \
	KUBECTL=$(CURDIR)/$(KUBECTL) \
	TYK_GATEWAY=$(TYK_GATEWAY) TYK_TEMPLATES=$(TYK_TEMPLATES) TYK_GATEWAY_VERSION=$(TYK_GATEWAY_VERSION)
go-test: build $(KUSTOMIZE) $(TYK) $(KUBE_APISERVER) $(ETCD) $(KUBECTL) $(ARGOCD_CMP_SERVER) $(ARGOCD_CMPDRIVER) $(MERMAID_JS)
	@race=$$($(GO) list $(RACE_PKGS)) && plain=$$($(GO) list ./... | grep -vxF "$$race") && \
	$(TEST_ENV) $(GO) run ./tools/testreport -go $(GO) -may-skip tools/testreport/may-skip.txt -- \
		-timeout $(GO_TEST_TIMEOUT) $$plain -- -race -timeout $(GO_TEST_TIMEOUT) $$race


# Every golden file, rewritten from what the code now writes: the packages whose tests take -update (fn's stories,
# fn/hook's objects, cmd/gateway2tyk's diff reports; e2e's TestGoldenPackages checks this list against the tests'
# -update flags). Read every changed file before committing it: golden files are reviewed by reading them.
GOLDEN_PKGS := ./fn ./fn/hook ./cmd/gateway2tyk
golden:
	$(GO) test -count=1 $(GOLDEN_PKGS) -update
	git status --short -- $(GOLDEN_PKGS) docs/reference/cli

# The Dockerfile's build stage must run make build's go build (and bin/kustomize's go install): a Go test reads
# both and builds the Dockerfile's command locally to compare the binaries. `make test` runs it too.
check-dockerfile: build
	GATEWAY2TYK=$(CURDIR)/$(GATEWAY2TYK) $(GO) test -count=1 -run '^TestDockerfile' ./e2e

# Checks for an engine first, so that a machine with only the docker CLI says so instead of failing half-way.
image:
	@if ! command -v $(DOCKER) >/dev/null 2>&1; then \
		echo "make image: '$(DOCKER)' is not installed: the image needs Docker (or DOCKER=podman)." >&2; exit 2; \
	fi
	@if ! $(DOCKER) info >/dev/null 2>&1; then \
		echo "make image: no Docker engine answers ('$(DOCKER) info' failed): the image cannot be built on this machine." >&2; \
		echo "  The docker CLI is here but no daemon runs; start one (or set DOCKER_HOST) and run make image again." >&2; \
		echo "  Nothing was built. The binaries themselves: make build." >&2; \
		exit 2; \
	fi
	$(DOCKER) build --build-arg GO_VERSION=$(GO_VERSION) --build-arg KUSTOMIZE_VERSION=$(KUSTOMIZE_VERSION) -t $(IMAGE) .

# Runs the image as kpt and kustomize run container functions (nobody, no network) on EXAMPLE's files.
image-test:
	mkdir -p $(BIN)
	$(DOCKER) run --rm --network none --user 65534:65534 --entrypoint kustomize $(IMAGE) version
	for f in $(EXAMPLE)/*.yaml; do echo ---; cat "$$f"; done > $(BIN)/image-test-input.yaml
	$(DOCKER) run --rm -i --network none --user 65534:65534 $(IMAGE) render /dev/stdin \
		< $(BIN)/image-test-input.yaml > $(BIN)/image-test-output.yaml
	grep -q 'gateway2tyk.io/api-id' $(BIN)/image-test-output.yaml
	@echo "image-test: $(IMAGE) rendered $(EXAMPLE) as nobody with no network"

# Wall time and peak memory of the render and of a no-op kyaml function, on generated ResourceLists of SIZES
# routes (bench/out/, not committed). BENCHMARKS.md records a run. SIZES="1000 10000 50000" adds the large fleet.
SIZES ?= 1000 10000
RUNS  ?= 2
HOSTNAMES ?= 1
FLEET     ?= default
# BENCH_PROFILE=gateway-api renders the fleets with that profile (PROFILE is e2e-conformance's).
BENCH_PROFILE ?=
bench:
	SIZES="$(SIZES)" RUNS="$(RUNS)" HOSTNAMES="$(HOSTNAMES)" FLEET="$(FLEET)" PROFILE="$(BENCH_PROFILE)" GO="$(GO)" sh bench/run.sh

# Wall time of each documented pipeline (kustomize transformer, the large-app kustomize path, the Argo CD plugin as
# its sidecar runs it, kpt, the function alone) with and without gateway2tyk, on generated fleets of SIZES routes
# (bench/out/pipelines/, not committed). A run slower than TIMEOUT seconds shows as "> TIMEOUT s". BENCHMARKS.md
# records a run. Takes about half an hour with the defaults.
PIPELINE_SIZES ?= 1000 5000 10000
TIMEOUT        ?= 120
bench-pipelines: $(KUSTOMIZE)
	SIZES="$(PIPELINE_SIZES)" TIMEOUT="$(TIMEOUT)" GO="$(GO)" KUSTOMIZE="$(KUSTOMIZE)" sh bench/pipelines.sh

# gateway2tyk diff of a fleet and the same fleet with CHANGED routes changed, against one render of the fleet
# (bench/diff.sh; BENCHMARKS.md records a run).
CHANGED ?= 10
bench-diff:
	SIZES="$(SIZES)" RUNS="$(RUNS)" CHANGED="$(CHANGED)" GO="$(GO)" sh bench/diff.sh

clean:
	rm -rf $(BIN)

# Fuzzing: go test -fuzz runs one target at a time, so each target runs for FUZZTIME in turn. `make test` runs only
# their seed corpus (the golden inputs, edge seeds and testdata/fuzz/<target>). A crasher is written to
# <package>/testdata/fuzz/<target>/<id>: commit it with a named regression test, and fix it. The corpus found
# while fuzzing is kept in the Go build cache, so successive runs build on each other.
FUZZTIME         ?= 60s
FUZZMINIMIZETIME ?= 2s
FUZZPARALLEL     ?= 2
FUZZ_TARGETS     := ./fn/read:FuzzItems ./fn:FuzzPipeline ./fn:FuzzPipelineMutated ./fn/internal/directyaml:FuzzAppendItem
.PHONY: fuzz
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg) for $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) \
			-parallel $(FUZZPARALLEL) || exit 1; \
	done
