package main

// The exit statuses of every command, in one place; README.md ("Exit status") has the same table.
const (
	// exitOK: the command did what it was asked.
	exitOK = 0
	// exitResults: the command ran and its answer is "no": results at or above failOn (render, the KRM function,
	// argocd generate), drift (sync --check), a change that fails (diff), sync actions that failed.
	exitResults = 1
	// exitUsage: the command cannot run as asked: a bad flag, PATH, request or setting, or input that cannot
	// be read (a file that does not parse, a bad function config, a failed render's output given to sync).
	exitUsage = 2
	// exitRefused: the application must be built with gateway2tyk as kustomize's transformer (render -k,
	// configure --detach-transformer: kustomization.Unfaithful).
	exitRefused = 3
	// exitUnreachable: something the command must talk to (a Tyk Dashboard or Gateway, the cluster) failed it
	// before an answer could be given: nothing was decided, and nothing changed that the output does not say.
	exitUnreachable = 4
	// exitBug: gateway2tyk itself failed (a panic): a bug to report, never the user's input (sysexits' EX_SOFTWARE).
	exitBug = 70
)

// exitUseTransformer is the exit status of `render -k` and `configure --detach-transformer` when the
// application must be built with gateway2tyk as a kustomize transformer (kustomization.Unfaithful).
const exitUseTransformer = exitRefused
