# gateway2tyk: build, demo and test. Recipes are plain sh (no pipefail).

GO             ?= go
BIN            := $(CURDIR)/bin
KUSTOMIZE_VERSION := v5.8.2
# Targets are relative paths (so `make bin/kustomize` works); the tests get absolute ones.
KUSTOMIZE      := bin/kustomize
GATEWAY2TYK    := bin/gateway2tyk
EXAMPLE        ?= examples/basic

.DEFAULT_GOAL := build

.PHONY: help build demo test vet fmt-check go-test clean

help: ## Show the targets
	@echo "make build          build bin/gateway2tyk"
	@echo "make bin/kustomize  install kustomize $(KUSTOMIZE_VERSION) into bin/ (when absent)"
	@echo "make demo           render $(EXAMPLE) with kustomize and the function, and print the APIs"
	@echo "make test           go vet, gofmt check, go test (with bin/kustomize and bin/gateway2tyk)"
	@echo "make clean          remove bin/"

# The Go build decides what is out of date, so build always runs it.
build:
	CGO_ENABLED=0 $(GO) build -o $(GATEWAY2TYK) ./cmd/gateway2tyk

# Installed only when absent. To change the version, edit KUSTOMIZE_VERSION and run `make clean`.
$(KUSTOMIZE):
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)

demo: build $(KUSTOMIZE)
	PATH=$(BIN):$$PATH kustomize build --enable-alpha-plugins --enable-exec $(EXAMPLE)

test: build $(KUSTOMIZE) vet fmt-check go-test

vet:
	$(GO) vet ./...

fmt-check:
	@echo "gofmt -l (every .go file but testdata)"
	@unformatted=$$(find . -name '*.go' -not -path './.git/*' -not -path './bin/*' -not -path '*/testdata/*' -exec gofmt -l {} +); \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt: these files are not formatted (run gofmt -w):"; \
		echo "$$unformatted"; \
		exit 1; \
	fi

go-test: build $(KUSTOMIZE)
	KUSTOMIZE=$(CURDIR)/$(KUSTOMIZE) GATEWAY2TYK=$(CURDIR)/$(GATEWAY2TYK) $(GO) test ./...

clean:
	rm -rf $(BIN)
