package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/inputfiles"
	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

// readInputs reads the inputs of a command: the PATHs as render reads them (what was skipped said on stderr),
// or with kdir as render -k does. A directory whose kustomization only kustomize can build is refused with the
// command line that gives its output to -k.
func readInputs(cmd *cobra.Command, paths []string, configPath, kdir string) (*inputSet, error) {
	if kdir != "" {
		items, fnConfig, app, err := readKustomized(cmd.Name(), kdir, configPath, paths, cmd.InOrStdin())
		if err != nil {
			return nil, err
		}
		return &inputSet{items: items, fnConfig: fnConfig, configFile: configSource(configPath, app)}, nil
	}
	in, err := readInput(paths, configPath, cmd.InOrStdin())
	if err != nil {
		return nil, inputError(cmd.Name(), err)
	}
	noteSkipped(cmd.ErrOrStderr(), cmd.Name(), in.skipped)
	return in, nil
}

// configSource names the file the function config of a -k read came from: -c's, else the application's.
func configSource(configPath string, app *kustomization.App) string {
	if configPath == "" && app != nil {
		return app.ConfigSource
	}
	return configPath
}

// inputError is a usage error for a problem reading a command's PATHs; for a kustomization that must be built,
// it says how to give kustomize's output instead.
func inputError(name string, err error) error {
	var nb *kustomization.NeedsBuild
	if !errors.As(err, &nb) {
		return usage("%s: %v", name, err)
	}
	// Without --enable-exec, kustomize leaves gateway2tyk's exec transformer out and prints its inputs. -k is
	// suggested only for a directory -k takes: advice must work on the input that prompted it.
	transformer := "kustomize build --enable-alpha-plugins --enable-exec " + nb.Dir
	if _, loadErr := kustomization.Load(nb.Dir); loadErr != nil {
		var unfaithful *kustomization.Unfaithful
		if name == "render" && errors.As(loadErr, &unfaithful) {
			return usage("%s: %v: reading its directory's files would answer wrongly; render it with `%s` "+
				"(it must keep gateway2tyk as kustomize's transformer: %v)", name, err, transformer, loadErr)
		}
		return usage("%s: %v: reading its directory's files would answer wrongly, and -k cannot take its kustomize "+
			"output either: %v", name, err, loadErr)
	}
	build := "kustomize build --enable-alpha-plugins " + nb.Dir
	how := map[string]string{
		"render":  "render it with `" + transformer + "`, or `" + build + " | gateway2tyk render -k " + nb.Dir + " -`",
		"explain": "give kustomize's output to -k: `" + build + " | gateway2tyk explain -k " + nb.Dir + " --request ... -`",
		"graph":   "give kustomize's output to -k: `" + build + " | gateway2tyk graph -k " + nb.Dir + " -`",
		"diff": "give kustomize's output of each side to -k: `gateway2tyk diff -k OLDDIR -k NEWDIR old.yaml new.yaml` " +
			"with old.yaml from `kustomize build --enable-alpha-plugins OLDDIR` (and the same for NEW), or use diff --git, which builds each revision with kustomize",
	}[name]
	return usage("%s: %v: reading its directory's files would answer wrongly; %s", name, err, how)
}

// stdinName is how a message names stdin (the PATH "-").
const stdinName = "<stdin>"

// inputSet is what readInput makes of a command's PATHs.
type inputSet struct {
	items    []*yaml.RNode
	fnConfig *yaml.RNode
	// configFile is the file the function config came from.
	configFile string
	// skipped says what was left out, a line each (fn/inputfiles' Skipped, and YAML files that hold no
	// Kubernetes object).
	skipped []string
	// where is the FILE:LINE of each object, by identity, so that a result about it can name its file.
	where map[string]string
}

// readPaths reads the items and the function config of the paths (readInput).
func readPaths(paths []string, configPath string, stdin io.Reader) ([]*yaml.RNode, *yaml.RNode, error) {
	in, err := readInput(paths, configPath, stdin)
	if err != nil {
		return nil, nil, err
	}
	return in.items, in.fnConfig, nil
}

// readInput reads the items of every path, each YAML file of a directory (fn/inputfiles decides which) on its
// own so that every problem names its file. Kustomization and Kptfile objects are build files, not resources,
// and an object of gateway2tyk's API group (or a RenderConfig) among the inputs is the function config (unless
// -c names one), so none of them is an item. It refuses what would make the answer depend on the order of the
// files (one object twice, two function configs) and a directory whose kustomization only kustomize can build
// (*kustomization.NeedsBuild).
//
// A PATH "-" is a YAML stream on stdin (nil: none to read).
func readInput(paths []string, configPath string, stdin io.Reader) (*inputSet, error) {
	in := &inputSet{where: map[string]string{}}
	for _, p := range paths {
		files, err := yamlFiles(p, stdin, in)
		if err != nil {
			return nil, err
		}
		for _, file := range files {
			nodes, lines, err := readFile(file, stdin)
			if err != nil {
				return nil, err
			}
			name := fileName(file)
			if len(nodes) > 0 && !holdsObject(nodes) {
				in.skipped = append(in.skipped, name+": holds no Kubernetes object (no apiVersion and kind): not read")
				continue
			}
			for i, n := range nodes {
				at := name
				if lines[i] > 0 {
					at = fmt.Sprintf("%s:%d", name, lines[i])
				}
				if n.GetApiVersion() == "" || n.GetKind() == "" {
					return nil, fmt.Errorf("%s: document %d has no apiVersion or no kind: every document of a file "+
						"that holds Kubernetes objects must be one", at, i+1)
				}
				switch {
				case n.GetKind() == "Kustomization" || n.GetKind() == "Component" || n.GetKind() == "Kptfile":
					continue
				case isFunctionConfig(n):
					if configPath != "" {
						continue
					}
					if in.fnConfig != nil {
						return nil, fmt.Errorf("two function configs: %s in %s and %s in %s; "+
							"keep one, or name the one to use with -c", describe(in.fnConfig), in.configFile, describe(n), at)
					}
					in.fnConfig, in.configFile = n, at
					continue
				}
				if id := identity(n); id != "" {
					if first, dup := in.where[id]; dup {
						return nil, fmt.Errorf("%s is in both %s and %s: every YAML file of a directory is read, "+
							"and an object must be given once (is one of them an earlier render's output?)",
							describe(n), first, at)
					}
					in.where[id] = at
				}
				in.items = append(in.items, n)
			}
		}
	}
	if configPath != "" {
		data, err := os.ReadFile(configPath)
		if err != nil {
			return nil, err
		}
		if in.fnConfig, err = yaml.Parse(string(data)); err != nil {
			return nil, fmt.Errorf("%s: %w", configPath, err)
		}
		in.configFile = configPath
	}
	return in, nil
}

// isFunctionConfig reports whether an object among the inputs is meant as gateway2tyk's function config: any
// object of its API group (a misspelt kind is then refused by config.Load, not rendered as an item), or a
// RenderConfig.
func isFunctionConfig(n *yaml.RNode) bool {
	return strings.HasPrefix(n.GetApiVersion(), config.Group+"/") || n.GetKind() == config.Kind
}

// holdsObject reports whether some document is a Kubernetes object (has an apiVersion or a kind): a file with
// none (a CI workflow, a Helm values file) is not an input.
func holdsObject(nodes []*yaml.RNode) bool {
	for _, n := range nodes {
		if n.GetApiVersion() != "" || n.GetKind() != "" {
			return true
		}
	}
	return false
}

// fileName is a file as messages name it: stdin is <stdin>.
func fileName(file string) string {
	if file == "-" {
		return stdinName
	}
	return file
}

// loadConfig loads the function config of in, an error naming its file.
func (in *inputSet) loadConfig() (config.Spec, error) {
	fc, err := withProfile(in.fnConfig)
	if err != nil {
		return config.Spec{}, err
	}
	in.fnConfig = fc
	cfg, err := config.Load(in.fnConfig)
	if err != nil && in.configFile != "" {
		return cfg, fmt.Errorf("%s: %w", in.configFile, err)
	}
	return cfg, err
}

// yamlFiles lists the files render reads for path: path itself, or the files fn/inputfiles lists below a
// directory, what it left out noted in in.skipped. A kustomization met on the way must be one whose objects are
// its files as written (kustomization.CheckPlain).
func yamlFiles(path string, stdin io.Reader, in *inputSet) ([]string, error) {
	if path == "-" && stdin != nil {
		return []string{path}, nil
	}
	l, err := inputfiles.List(path)
	if err != nil {
		return nil, err
	}
	for _, s := range l.Skipped {
		in.skipped = append(in.skipped, s.String())
	}
	for _, k := range l.Kustomizations {
		if err := kustomization.CheckPlain(k, path); err != nil {
			return nil, err
		}
	}
	return l.Files, nil
}

// readFile reads the objects of one YAML file ("-": stdin) and the line in the file where each starts (0 when
// unknown); every error names the file, and a YAML error its line in the file.
func readFile(file string, stdin io.Reader) ([]*yaml.RNode, []int, error) {
	var data []byte
	var err error
	if file == "-" && stdin != nil {
		if isTerminal(stdin) {
			return nil, nil, errStdinTerminal
		}
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, nil, err
	}
	name := fileName(file)
	if line, bad := notText(data); bad {
		return nil, nil, fmt.Errorf("%s:%d: not YAML text (it holds a NUL byte or bytes that are not UTF-8: a binary "+
			"file, or text in another encoding such as Latin-1?)", name, line)
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s", name, yamlError(data, err))
	}
	lines := documentLines(data, len(nodes))
	for i, n := range nodes {
		at := name
		if lines[i] > 0 {
			at = fmt.Sprintf("%s:%d", name, lines[i])
		}
		if k := n.YNode().Kind; k != yaml.MappingNode {
			what := map[yaml.Kind]string{yaml.SequenceNode: "a YAML list", yaml.ScalarNode: "a bare value"}[k]
			if what == "" {
				what = "not a mapping"
			}
			return nil, nil, fmt.Errorf("%s: document %d is %s, not a Kubernetes object (a mapping with apiVersion, kind "+
				"and metadata)", at, i+1, what)
		}
		// Two objects run together (files joined without a "---" line) make one mapping with every key twice.
		seen := map[string]bool{}
		content := n.YNode().Content
		for k := 0; k+1 < len(content); k += 2 {
			key := content[k].Value
			if seen[key] {
				return nil, nil, fmt.Errorf("%s:%d: document %d has the key %q twice: are two objects run together without "+
					"a --- line between them?", name, lines[i]+content[k].Line-content[0].Line, i+1, key)
			}
			seen[key] = true
		}
	}
	return nodes, lines, nil
}

// separatedDocuments is the first content line of each document of data split at "---" lines.
func separatedDocuments(data []byte) []int {
	var found []int
	inDoc := false
	for i, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimSpace(line)
		switch {
		case bytes.HasPrefix(line, []byte("---")) && (len(line) == 3 || line[3] == ' ' || line[3] == '\r' || line[3] == '\t'):
			inDoc = false
			if rest := bytes.TrimSpace(line[3:]); len(rest) > 0 && rest[0] != '#' {
				found, inDoc = append(found, i+1), true // content on the separator line itself
			}
		case inDoc || len(trimmed) == 0 || trimmed[0] == '#':
		default:
			found, inDoc = append(found, i+1), true
		}
	}
	return found
}

// notText reports whether data is not UTF-8 text, and the line of the first byte that is not.
func notText(data []byte) (int, bool) {
	bad := bytes.IndexByte(data, 0)
	if bad < 0 && utf8.Valid(data) {
		return 0, false
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if (r == utf8.RuneError && size <= 1) || data[i] == 0 {
			if bad < 0 || i < bad {
				bad = i
			}
			break
		}
		i += size
	}
	return 1 + bytes.Count(data[:bad], []byte("\n")), true
}

// documentLines is the line in data where each of the n documents kyaml read begins (its first key), counted
// from the top of the file: kyaml parses each document alone. yaml.v3's decoder over the whole stream counts
// from the top; when the two disagree on the number of documents, the lines are unknown (0).
func documentLines(data []byte, n int) []int {
	// Most files are plain: the documents start after "---" lines, each at its first line that is neither blank
	// nor a comment. Only when that count is not kyaml's is the file decoded again (a second parse costs as
	// much as the first, and a directory of 10,000 routes is read under Argo CD's deadline).
	if found := separatedDocuments(data); len(found) == n {
		return found
	}
	lines := make([]int, n)
	var found []int
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if len(doc.Content) == 0 || (doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null") {
			continue // kyaml drops empty documents
		}
		found = append(found, doc.Content[0].Line)
	}
	if len(found) == n {
		copy(lines, found)
	}
	return lines
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlError is kyaml's error for a file, with the line counted from the top of the file: kyaml parses each
// document alone and counts lines within it. yaml.v3's decoder over the whole stream counts them from the top.
func yamlError(data []byte, readErr error) string {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if yamlLine.MatchString(err.Error()) {
				return err.Error()
			}
			break
		}
	}
	msg := readErr.Error()
	msg = strings.TrimPrefix(msg, "MalformedYAMLError: ")
	return msg
}

// identity names an object as the API server does (group, kind, namespace, name); "" for one without a name.
func identity(n *yaml.RNode) string {
	name := n.GetName()
	if name == "" {
		return ""
	}
	group, _, _ := strings.Cut(n.GetApiVersion(), "/")
	if !strings.Contains(n.GetApiVersion(), "/") {
		group = ""
	}
	return group + "\x00" + n.GetKind() + "\x00" + n.GetNamespace() + "\x00" + name
}

func describe(n *yaml.RNode) string {
	name := n.GetName()
	if ns := n.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return n.GetKind() + " " + name + " (" + n.GetApiVersion() + ")"
}
