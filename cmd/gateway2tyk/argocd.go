package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/inputfiles"
	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

// The Argo CD Config Management Plugin's commands (plugin.yaml runs them in the argocd-cmp-server sidecar). What
// they rely on is Argo CD v3.6.1's own behaviour (cmpserver/plugin, reposerver/repository), held to the real
// argocd-cmp-server by e2e/argocd_test.go:
//   - the working directory is the Application's source path inside a throw-away copy of the whole repository;
//   - ARGOCD_APP_NAME is the Application's name, or <namespace>_<name> outside Argo CD's namespace, and
//     ARGOCD_APP_NAMESPACE is its destination namespace;
//   - parameters arrive as PARAM_<NAME> (upper-cased, other characters _), plugin env as ARGOCD_ENV_<name>;
//   - the command runs under the repo-server's gRPC deadline (60 s by default) and is killed with SIGKILL when it
//     passes: so nothing here writes a file a clean-up would have to remove, and kustomize gets a deadline of its
//     own below Argo CD's, so that the user reads why instead of "context deadline exceeded".

// Plugin env (ARGOCD_ENV_ + these) and parameters (PARAM_ + these) the generate command reads.
const (
	envOutput         = "GATEWAY2TYK_OUTPUT"
	envFailOn         = "GATEWAY2TYK_FAIL_ON"
	envKustomizeFlags = "GATEWAY2TYK_KUSTOMIZE_FLAGS"
	envTimeout        = "GATEWAY2TYK_TIMEOUT"
	paramOutput       = "PARAM_OUTPUT"
	paramFailOn       = "PARAM_FAIL_ON"
	// envDefaultNamespace is what the plugin gives the KRM function it has kustomize run: the namespace of
	// objects without one (Argo CD's destination).
	envDefaultNamespace = "GATEWAY2TYK_DEFAULT_NAMESPACE"
	// paramOwner is the owner parameter: the Application may name the owner of its APIs (its own name, say),
	// written into the RenderConfig's spec.owner like the other parameters, so that the output is what the
	// repository and the Application's parameters say, never the sidecar's environment (ARGOCD_APP_NAME is not
	// read for it). There is no plugin env for it: the default (config.DefaultOwner) is made from the repository.
	paramOwner = "PARAM_OWNER"
)

// defaultArgoTimeout is the generate command's own deadline for kustomize: below the repo-server's 60 s default
// (less the 100 ms Argo CD keeps for itself), leaving time for the render after kustomize and for the message.
const defaultArgoTimeout = 50 * time.Second

func newArgoCDCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "argocd",
		Short: "The commands of the Argo CD Config Management Plugin (plugin.yaml): discover, generate",
		Long: "The commands plugin.yaml runs in Argo CD's CMP sidecar. discover prints the gateway2tyk RenderConfig at or\n" +
			"below the application's directory (Argo CD's discovery). generate renders the application as Argo CD\n" +
			"asks: it reads ARGOCD_APP_NAME, ARGOCD_APP_NAMESPACE (the destination namespace; both only to name the\n" +
			"Application in errors), the parameters (PARAM_OUTPUT, PARAM_FAIL_ON, PARAM_OWNER) and the plugin env\n" +
			"(ARGOCD_ENV_*), picks the path (a kustomization, one\n" +
			"that must keep gateway2tyk as its transformer, or plain YAML), runs kustomize under a deadline below\n" +
			"Argo CD's, and prints the manifests, or one error block naming the Application. Objects without a\n" +
			"namespace get ARGOCD_APP_NAMESPACE. In Argo CD (ARGOCD_APP_NAME set) it edits the sidecar's throw-away\n" +
			"copy of the repository in place (the overrides, the detached transformer); run by hand, it makes those\n" +
			"edits in a temporary copy of the repository and changes none of your files.",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "discover",
		Short: "Print the first gateway2tyk function config at or below the working directory (Argo CD's discovery)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return argoDiscover(cmd.OutOrStdout(), ".")
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "generate",
		Short: "Render the Application in the working directory for Argo CD (objects on stdout, one error block on stderr)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return argoGenerate(cmd.OutOrStdout(), cmd.ErrOrStderr(), os.Getenv)
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	})
	return cmd
}

// argoApplication names the Application as Argo CD knows it, from the variables the repo-server sets
// (reposerver/repository.newEnv): ARGOCD_APP_NAME is Application.InstanceName, the name or <namespace>_<name>
// (shown as <namespace>/<name>: a Kubernetes name has no underscore); ARGOCD_APP_NAMESPACE is the destination.
func argoApplication() string {
	name := os.Getenv("ARGOCD_APP_NAME")
	if name == "" {
		return ""
	}
	if ns, n, ok := strings.Cut(name, "_"); ok {
		name = ns + "/" + n
	}
	if dest := os.Getenv("ARGOCD_APP_NAMESPACE"); dest != "" {
		return name + " (destination namespace " + dest + ")"
	}
	return name
}

// argoDiscover prints the path of the first input file at or below dir (the files render reads: fn/inputfiles)
// holding an object that render takes as gateway2tyk's function config (isFunctionConfig), and nothing when there
// is none (Argo CD claims the source when the output is not empty). A file that does not parse is not ours to
// judge here: generate reports it. A directory whose files cannot be listed (a link leaving the repository) is
// an error, which Argo CD logs.
func argoDiscover(stdout io.Writer, dir string) error {
	l, err := inputfiles.List(dir)
	if err != nil {
		return usage("argocd discover: %v", err)
	}
	for _, path := range l.Files {
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte("gateway2tyk.io/")) && !bytes.Contains(data, []byte(config.Kind)) {
			continue
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
		if err != nil {
			continue
		}
		for _, n := range nodes {
			if isFunctionConfig(n) {
				fmt.Fprintln(stdout, path)
				return nil
			}
		}
	}
	return nil
}

// argoSettings are the Application's overrides: a parameter wins over plugin env, which wins over git.
type argoSettings struct {
	set            map[string]string // RenderConfig spec fields to set
	kustomizeFlags []string
	timeout        time.Duration
}

func readArgoSettings(getenv func(string) string) (argoSettings, error) {
	s := argoSettings{set: map[string]string{}, timeout: defaultArgoTimeout}
	first := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	if v := first(paramOutput, "ARGOCD_ENV_"+envOutput); v != "" {
		s.set["output"] = v
	}
	if v := first(paramFailOn, "ARGOCD_ENV_"+envFailOn); v != "" {
		s.set["failOn"] = v
	}
	if v := getenv(paramOwner); v != "" {
		s.set["owner"] = v
	}
	s.kustomizeFlags = strings.Fields(getenv("ARGOCD_ENV_" + envKustomizeFlags))
	if v := getenv("ARGOCD_ENV_" + envTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return s, fmt.Errorf("plugin env %s=%q: want a duration such as 110s", envTimeout, v)
		}
		s.timeout = d
	}
	return s, nil
}

// argoGenerate renders the Application in the working directory one of three ways (see docs/pipelines/argocd.md):
// a directory of plain YAML with the render alone; a kustomization with `kustomize build` then the render
// (`render -k`); a kustomization that must keep the transformer with kustomize running it. The objects are
// written only once all of it succeeded; on failure stderr is one block that starts with the Application.
func argoGenerate(stdout, stderr io.Writer, getenv func(string) string) error {
	var out, log bytes.Buffer
	err := argoRender(&out, &log, getenv)
	if err != nil {
		head := "gateway2tyk"
		if app := argoApplication(); app != "" {
			head += ": Argo CD application " + app
		}
		fmt.Fprintf(stderr, "%s: %s\n", head, firstLine(err))
		if log.Len() > 0 {
			stderr.Write(indent(log.Bytes()))
		}
		return &reportedError{err}
	}
	// Results that did not fail the render (warnings) are kept in the sidecar's log.
	stderr.Write(log.Bytes())
	_, err = stdout.Write(out.Bytes())
	return err
}

func argoRender(out, log *bytes.Buffer, getenv func(string) string) error {
	s, err := readArgoSettings(getenv)
	if err != nil {
		return err
	}
	var kustomizationFile string
	for _, k := range inputfiles.KustomizationNames {
		if _, err := os.Stat(k); err == nil {
			kustomizationFile = k
			break
		}
	}
	// Argo CD's directory is its copy of the repository, made for this one run, so it is edited in place (the
	// overrides, the detached transformer). Run by hand, the files are the user's: the edits go to a copy.
	dir := "."
	if getenv("ARGOCD_APP_NAME") == "" && (len(s.set) > 0 || kustomizationFile != "") {
		copied, remove, err := workCopy(".")
		if err != nil {
			return fmt.Errorf("cannot copy the repository to leave its files as they are: %v", err)
		}
		defer remove()
		dir = copied
	}
	namespace := getenv("ARGOCD_APP_NAMESPACE")
	if len(s.set) > 0 {
		n, _, err := configureTree(dir, s.set)
		if err != nil {
			return fmt.Errorf("cannot apply the Application's output/fail-on/owner: %v", err)
		}
		if n == 0 {
			return errors.New("the Application sets output/fail-on/owner, but no gateway2tyk RenderConfig is at or below its path")
		}
	}
	if kustomizationFile == "" {
		if err := renderFiles(nil, out, log, "", namespace, []string{dir}, ""); err != nil {
			return renderFailed(err)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	err = detachTransformer(log, dir)
	var unfaithful *kustomization.Unfaithful
	switch {
	case errors.As(err, &unfaithful):
		fmt.Fprintf(log, "gateway2tyk runs as kustomize's transformer: %v\n", err)
		built, err := runKustomize(ctx, log, s, dir, namespace, "--enable-alpha-plugins", "--enable-exec")
		if err != nil {
			return err
		}
		out.Write(built)
		return nil
	case err != nil:
		return fmt.Errorf("cannot read %s: %v", kustomizationFile, err)
	}
	built, err := runKustomize(ctx, log, s, dir, namespace)
	if err != nil {
		return err
	}
	if err := renderKustomized(bytes.NewReader(built), out, log, "", namespace, dir, "", []string{"-"}); err != nil {
		return renderFailed(err)
	}
	return nil
}

// renderFailed is the block's first line for a failed render: a usage error has not been printed yet.
func renderFailed(err error) error {
	var reported *reportedError
	if errors.As(err, &reported) {
		return errors.New("the render failed")
	}
	return err
}

// runKustomize runs `kustomize build [args] [flags] .` in dir from the sidecar's PATH under the generate deadline,
// and returns what it printed. Its stderr goes to log. It stays in the plugin's process group, so that Argo CD's
// kill of the group reaches it too. gateway2tyk as kustomize's transformer gets the destination namespace in
// its environment (envDefaultNamespace).
func runKustomize(ctx context.Context, log io.Writer, s argoSettings, dir, namespace string, args ...string) ([]byte, error) {
	path, err := exec.LookPath("kustomize")
	if err != nil {
		return nil, fmt.Errorf("kustomize is not on the sidecar's PATH (%s): run the sidecar from the gateway2tyk image, or put kustomize there", os.Getenv("PATH"))
	}
	argv := append(append(append([]string{"build"}, args...), s.kustomizeFlags...), ".")
	cmd := exec.CommandContext(ctx, path, argv...)
	cmd.Dir = dir
	if namespace != "" {
		cmd.Env = append(os.Environ(), envDefaultNamespace+"="+namespace)
	}
	var built bytes.Buffer
	cmd.Stdout = &built
	cmd.Stderr = log
	// kustomize's exec function (gateway2tyk as a transformer) may hold the pipes for a moment after a kill.
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("kustomize build did not finish within %s, and was stopped before Argo CD's deadline "+
			"(the repo-server's --repo-server-timeout-seconds, 60 s by default); raise that and the plugin env %s, "+
			"or render the application as a directory of plain YAML (see docs/pipelines/argocd.md)", s.timeout, envTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("kustomize %s failed (%v)", strings.Join(argv, " "), err)
	}
	return built.Bytes(), nil
}

func firstLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// indent indents each line of a block by two spaces, so that the block reads as one message under its head.
func indent(b []byte) []byte {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return []byte("  " + strings.Join(lines, "\n  ") + "\n")
}
