//go:build tools

// The packages of argo-cd's cmd main package (built as bin/argocd-cmp-server), so that go mod tidy keeps their
// requirements and sums.
package main

import (
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-applicationset-controller/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-cmp-server/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-commit-server/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-dex/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-git-ask-pass/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-k8s-auth/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-notification/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd-server/commands"
	_ "github.com/argoproj/argo-cd/v3/cmd/argocd/commands"
	_ "github.com/argoproj/argo-cd/v3/common"
	_ "github.com/argoproj/argo-cd/v3/util/grpc"
	_ "github.com/argoproj/argo-cd/v3/util/log"
)
