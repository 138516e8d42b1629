package e2e_test

// The Dockerfile builds the same binaries as `make build` (and `make bin/kustomize`): its build stage's
// `go build` and `go install` commands are read from the Dockerfile, `make -n` prints the Makefile's, and the two
// must agree on the environment (CGO_ENABLED=0), the flags, the package and the output's name. Then the
// Dockerfile's command is run here and its binary compared byte for byte with the one of make's command. No
// Docker engine is needed; `make image` itself is not run (see docs/install.md, The container image).

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dockerStage is one stage of the Dockerfile: its base image, name, ARG and ENV values and instructions.
type dockerStage struct {
	from, name string
	vars       map[string]string // ARG defaults and ENV values, for expansion
	env        map[string]string // ENV only: the environment of RUN
	runs       []string          // RUN commands (shell form)
	copies     []string          // COPY arguments
	user       string
	entrypoint string
}

// parseDockerfile reads the instructions of a Dockerfile: comments dropped, continuation lines joined.
func parseDockerfile(t *testing.T, file string) (global map[string]string, stages []*dockerStage) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var cur strings.Builder
	for _, l := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		lines = append(lines, cur.String())
		cur.Reset()
	}
	global = map[string]string{}
	var st *dockerStage
	for _, l := range lines {
		instr, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(instr) {
		case "ARG":
			name, def, _ := strings.Cut(rest, "=")
			if st == nil {
				global[name] = def
			} else if def != "" {
				st.vars[name] = def
			} else {
				st.vars[name] = global[name]
			}
		case "FROM":
			words := strings.Fields(rest)
			st = &dockerStage{from: expand(words[0], global), vars: map[string]string{}, env: map[string]string{}}
			if len(words) == 3 && strings.EqualFold(words[1], "AS") {
				st.name = words[2]
			}
			stages = append(stages, st)
		case "ENV":
			for _, kv := range shellWords(t, rest) {
				k, v, _ := strings.Cut(kv, "=")
				st.env[k] = expand(v, st.vars)
				st.vars[k] = st.env[k]
			}
		case "RUN":
			// The RUN sees the stage's ARGs and ENVs at this point of the stage.
			st.runs = append(st.runs, expand(rest, st.vars))
		case "COPY":
			st.copies = append(st.copies, rest)
		case "USER":
			st.user = rest
		case "ENTRYPOINT":
			st.entrypoint = rest
		}
	}
	return global, stages
}

var dockerVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

func expand(s string, vars map[string]string) string {
	return dockerVar.ReplaceAllStringFunc(s, func(m string) string {
		name := strings.Trim(m, "${}")
		if v, ok := vars[name]; ok {
			return v
		}
		return m
	})
}

// shellWords splits a simple shell command into words: single and double quotes, no expansions.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// goCommand is one `go build` or `go install` command line.
type goCommand struct {
	line     string
	env      map[string]string // VAR=value words before go
	sub      string            // build or install
	flags    map[string]string // every flag but -o, "-trimpath" -> "", "-ldflags" -> "-s -w"
	output   string            // -o, or GOBIN/<name> for install
	packages []string
}

// goFlagsWithValue are the go build flags that take a value.
var goFlagsWithValue = map[string]bool{
	"-o": true, "-C": true, "-p": true, "-asmflags": true, "-buildmode": true, "-compiler": true, "-gccgoflags": true,
	"-gcflags": true, "-installsuffix": true, "-ldflags": true, "-mod": true, "-modfile": true, "-overlay": true,
	"-pgo": true, "-pkgdir": true, "-tags": true, "-toolexec": true, "-coverpkg": true, "-covermode": true,
}

// goCommands finds the go build and go install commands of a shell command (split on && and ;).
func goCommands(t *testing.T, command string) []goCommand {
	t.Helper()
	var cmds []goCommand
	for _, part := range regexp.MustCompile(`&&|;`).Split(command, -1) {
		words := shellWords(t, strings.TrimSpace(part))
		c := goCommand{line: strings.TrimSpace(part), env: map[string]string{}, flags: map[string]string{}}
		i := 0
		for ; i < len(words) && regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`).MatchString(words[i]); i++ {
			k, v, _ := strings.Cut(words[i], "=")
			c.env[k] = v
		}
		if i+1 >= len(words) || path.Base(words[i]) != "go" || (words[i+1] != "build" && words[i+1] != "install") {
			continue
		}
		c.sub = words[i+1]
		for i += 2; i < len(words); i++ {
			w := words[i]
			if !strings.HasPrefix(w, "-") {
				c.packages = append(c.packages, w)
				continue
			}
			name, value, hasValue := strings.Cut(w, "=")
			name = "-" + strings.TrimLeft(name, "-")
			if !hasValue && goFlagsWithValue[name] && i+1 < len(words) {
				i++
				value = words[i]
			}
			if name == "-o" {
				c.output = value
				continue
			}
			c.flags[name] = value
		}
		if c.sub == "install" && c.env["GOBIN"] != "" && len(c.packages) == 1 {
			mod, _, _ := strings.Cut(c.packages[0], "@")
			c.output = c.env["GOBIN"] + "/" + path.Base(mod)
			if regexp.MustCompile(`^v[0-9]+$`).MatchString(path.Base(mod)) {
				c.output = c.env["GOBIN"] + "/" + path.Base(path.Dir(mod)) // .../kustomize/v5 installs kustomize
			}
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// makeCommands returns the go commands that `make build bin/kustomize` runs, as `make -n` prints them.
func makeCommands(t *testing.T, root string) (build, kustomize goCommand) {
	t.Helper()
	cmd := exec.Command("make", "--no-print-directory", "-n", "-B", "build", "bin/kustomize", "GO=go")
	cmd.Dir = root
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "MAKEFLAGS=") && !strings.HasPrefix(e, "MFLAGS=") && !strings.HasPrefix(e, "MAKELEVEL=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make -n build bin/kustomize: %v", err)
	}
	var found []goCommand
	for _, l := range strings.Split(string(out), "\n") {
		found = append(found, goCommands(t, l)...)
	}
	if len(found) != 2 || found[0].sub != "build" || found[1].sub != "install" {
		t.Fatalf("make -n build bin/kustomize printed %d go commands, want a go build and a go install:\n%s", len(found), out)
	}
	return found[0], found[1]
}

func TestDockerfileBuildsWhatMakeBuilds(t *testing.T) {
	root := repoRoot(t)
	global, stages := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	if len(stages) < 2 || stages[0].name == "" {
		t.Fatalf("the Dockerfile has %d stages: want a named build stage and a final stage", len(stages))
	}
	build, final := stages[0], stages[len(stages)-1]
	var dockerGo []goCommand
	for _, r := range build.runs {
		dockerGo = append(dockerGo, goCommands(t, r)...)
	}
	if len(dockerGo) != 2 || dockerGo[0].sub != "build" || dockerGo[1].sub != "install" {
		t.Fatalf("the build stage runs %d go commands, want a go build of the function, then the go install of kustomize", len(dockerGo))
	}
	makeBuild, makeKustomize := makeCommands(t, root)

	for _, pair := range []struct {
		what           string
		docker, make_  goCommand
		wantOutputBase string
	}{
		{"the function (make build)", dockerGo[0], makeBuild, "gateway2tyk"},
		{"kustomize (make bin/kustomize)", dockerGo[1], makeKustomize, "kustomize"},
	} {
		t.Run(pair.what, func(t *testing.T) {
			d, m := pair.docker, pair.make_
			where := fmt.Sprintf("\n  Dockerfile: %s\n  Makefile:   %s", d.line, m.line)
			// The environment of the Dockerfile's command is the stage's ENV plus the command's own.
			denv := map[string]string{}
			for k, v := range build.env {
				denv[k] = v
			}
			for k, v := range d.env {
				denv[k] = v
			}
			if denv["CGO_ENABLED"] != "0" || m.env["CGO_ENABLED"] != "0" {
				t.Errorf("CGO_ENABLED is %q in the Dockerfile and %q in the Makefile: want 0 in both (static binaries)%s",
					denv["CGO_ENABLED"], m.env["CGO_ENABLED"], where)
			}
			for _, k := range []string{"GOOS", "GOARCH", "GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOARM64"} {
				if denv[k] != m.env[k] {
					t.Errorf("%s is %q in the Dockerfile and %q in the Makefile%s", k, denv[k], m.env[k], where)
				}
			}
			if !reflect.DeepEqual(d.flags, m.flags) {
				t.Errorf("flags differ: Dockerfile %v, Makefile %v%s", d.flags, m.flags, where)
			}
			if !slices.Equal(d.packages, m.packages) {
				t.Errorf("packages differ: Dockerfile %v, Makefile %v%s", d.packages, m.packages, where)
			}
			if path.Base(d.output) != pair.wantOutputBase || path.Base(m.output) != pair.wantOutputBase {
				t.Errorf("outputs %q (Dockerfile) and %q (Makefile): want both named %s%s", d.output, m.output, pair.wantOutputBase, where)
			}
			// The final image holds what the build stage wrote.
			copied := false
			for _, c := range final.copies {
				if strings.Contains(c, "--from="+build.name) && strings.Contains(c, d.output) {
					copied = true
				}
			}
			if !copied {
				t.Errorf("the final stage does not COPY --from=%s %s", build.name, d.output)
			}
		})
	}

	t.Run("versions", func(t *testing.T) {
		mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
		if goVersion == nil {
			t.Fatal("go.mod has no go directive")
		}
		if got := global["GO_VERSION"]; got != string(goVersion[1]) || !strings.HasPrefix(build.from, "golang:"+got) {
			t.Errorf("the build stage is FROM %s (GO_VERSION %q): want golang:%s, go.mod's go version", build.from, got, goVersion[1])
		}
	})

	t.Run("final image", func(t *testing.T) {
		if u := strings.Split(final.user, ":")[0]; u == "" || u == "0" || u == "root" {
			t.Errorf("the final image runs as %q: want a non-root numeric user (nobody, 65534)", final.user)
		}
		if !strings.Contains(final.entrypoint, "gateway2tyk") {
			t.Errorf("ENTRYPOINT %s: want gateway2tyk, so that kpt and kustomize can run the image as a function", final.entrypoint)
		}
		hasPlugin := false
		for _, c := range final.copies {
			if regexp.MustCompile(`^plugin\.yaml\s+/home/argocd/cmp-server/config/plugin\.yaml$`).MatchString(c) {
				hasPlugin = true
			}
		}
		if !hasPlugin {
			t.Errorf("the final stage does not COPY plugin.yaml to /home/argocd/cmp-server/config/plugin.yaml")
		}
	})

	t.Run(".dockerignore keeps the sources", func(t *testing.T) {
		checkDockerignore(t, root)
	})

	// The Dockerfile's command, run here as in /src, gives the very binary of make build's command.
	t.Run("same binary as make build", func(t *testing.T) {
		tmp := t.TempDir()
		dockerBin := runGoCommand(t, root, build.env, dockerGo[0], filepath.Join(tmp, "docker", "gateway2tyk"))
		d := sha256File(t, dockerBin)
		// Under `make test`, $GATEWAY2TYK is what make build has just built: the same bytes are the proof. When
		// it differs (a source changed since), make build's command is run here too.
		made := filepath.Join(root, makeBuild.output)
		if os.Getenv("GATEWAY2TYK") != made || sha256File(t, made) != d {
			made = runGoCommand(t, root, nil, makeBuild, filepath.Join(tmp, "make", "gateway2tyk"))
		}
		if m := sha256File(t, made); d != m {
			t.Errorf("the Dockerfile's go build gives sha256 %s, make build's %s: not the same binary", d, m)
		}
		// Static: no program interpreter (dynamic loader) to find in a busybox or scratch image.
		f, err := elf.Open(dockerBin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("the binary is dynamically linked (it has a PT_INTERP program header)")
			}
		}
	})
}

// runGoCommand runs a go build command here, in the repository root, with its environment (and the stage's
// ENV), writing the binary to out.
func runGoCommand(t *testing.T, root string, stageEnv map[string]string, c goCommand, out string) string {
	t.Helper()
	args := []string{c.sub}
	for f, v := range c.flags {
		if v == "" {
			args = append(args, f)
		} else {
			args = append(args, f+"="+v)
		}
	}
	args = append(append(args, "-o", out), c.packages...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	for k, v := range stageEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s, run here (go %s): %v\n%s", c.line, strings.Join(args, " "), err, b)
	}
	return out
}

func sha256File(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkDockerignore fails t when .dockerignore leaves out of the build context a file the image needs: go.mod,
// go.sum, plugin.yaml, or a directory of a package that ./cmd/gateway2tyk is built from.
func checkDockerignore(t *testing.T, root string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasPrefix(l, "!") {
			t.Fatalf(".dockerignore has an exception (%s): the check here reads only plain patterns", l)
		}
		patterns = append(patterns, strings.TrimSuffix(strings.TrimPrefix(l, "/"), "/"))
	}
	ignored := func(p string) string {
		// A pattern matches a path or any of its parent directories; **/ matches any number of directories.
		for q := p; q != "." && q != "/"; q = path.Dir(q) {
			for _, pat := range patterns {
				candidates := []string{q}
				if rest, ok := strings.CutPrefix(pat, "**/"); ok {
					pat = rest
					for s := q; strings.Contains(s, "/"); {
						_, s, _ = strings.Cut(s, "/")
						candidates = append(candidates, s)
					}
				}
				for _, c := range candidates {
					if ok, _ := path.Match(pat, c); ok {
						return pat
					}
				}
			}
		}
		return ""
	}
	need := []string{"go.mod", "go.sum", "plugin.yaml", "cmd/gateway2tyk/main.go"}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", "./cmd/gateway2tyk")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/gateway2tyk: %v", err)
	}
	for _, dir := range strings.Fields(string(out)) {
		if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
			need = append(need, filepath.ToSlash(rel))
		}
	}
	for _, p := range need {
		if pat := ignored(p); pat != "" {
			t.Errorf(".dockerignore's %q leaves %s out of the image's build context", pat, p)
		}
	}
	// And it does leave out what the image must not carry.
	for _, p := range []string{".git/config", "bin/gateway2tyk"} {
		if ignored(p) == "" {
			t.Errorf(".dockerignore does not leave out %s", p)
		}
	}
}
