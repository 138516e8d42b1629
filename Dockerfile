# syntax=docker/dockerfile:1
#
# The gateway2tyk image: the function and the pinned standalone kustomize, both static (CGO off), on busybox
# (a shell to look around in; the Argo CD plugin's commands are gateway2tyk's own and need none). One image serves as
#   - a KRM container function for kustomize and kpt (they run it as nobody, with no network), and
#   - the Argo CD Config Management Plugin sidecar (examples/argocd/: argocd-cmp-server as user 999).
#
#   make image                  # docker build with the versions of the Makefile, tagged $(IMAGE)
#
# The build stage runs exactly `make build`'s go build command, and installs kustomize as `make bin/kustomize`
# does; `make check-dockerfile` (part of `make test`) fails when they drift apart.

ARG GO_VERSION=1.26.8
ARG BUSYBOX_VERSION=1.37.0-musl

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -o /out/gateway2tyk ./cmd/gateway2tyk
ARG KUSTOMIZE_VERSION=v5.8.2
RUN CGO_ENABLED=0 GOBIN=/out go install -trimpath -buildvcs=false sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}

FROM busybox:${BUSYBOX_VERSION}
LABEL org.opencontainers.image.title="gateway2tyk" \
      org.opencontainers.image.description="Gateway API routes rendered offline into Tyk OAS APIs (KRM function, Argo CD plugin)" \
      org.opencontainers.image.source="https://github.com/gateway2tyk/gateway2tyk"
COPY --from=build /out/gateway2tyk /out/kustomize /usr/local/bin/
# Argo CD reads the plugin config from here; examples/argocd/ also mounts it from a ConfigMap.
COPY plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
# nobody; Argo CD runs the sidecar as 999. Nothing in the image needs to be written.
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/gateway2tyk"]
