package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

// readInputs reads the inputs of a command: the PATHs as render reads them, or with kdir as render -k does. A
// directory whose kustomization only kustomize can build is refused with the command line that gives its
// output to -k.
func readInputs(cmd *cobra.Command, paths []string, configPath, kdir string) ([]*yaml.RNode, *yaml.RNode, error) {
	if kdir != "" {
		items, fnConfig, _, err := readKustomized(cmd.Name(), kdir, configPath, paths, cmd.InOrStdin())
		return items, fnConfig, err
	}
	items, fnConfig, err := readPaths(paths, configPath, cmd.InOrStdin())
	if err != nil {
		return nil, nil, inputError(cmd.Name(), err)
	}
	return items, fnConfig, nil
}

// inputError is a usage error for a problem reading a command's PATHs; for a kustomization that must be built,
// it says how to give kustomize's output instead.
func inputError(name string, err error) error {
	var nb *kustomization.NeedsBuild
	if !errors.As(err, &nb) {
		return usage("%s: %v", name, err)
	}
	// Without --enable-exec, kustomize leaves gateway2tyk's exec transformer out and prints its inputs.
	build := "kustomize build --enable-alpha-plugins " + nb.Dir
	how := map[string]string{
		"render":  "render it with `kustomize build --enable-alpha-plugins --enable-exec " + nb.Dir + "`, or `" + build + " | gateway2tyk render -k " + nb.Dir + " -`",
		"explain": "give kustomize's output to -k: `" + build + " | gateway2tyk explain -k " + nb.Dir + " --request ... -`",
		"graph":   "give kustomize's output to -k: `" + build + " | gateway2tyk graph -k " + nb.Dir + " -`",
		"diff": "give kustomize's output of each side to -k: `gateway2tyk diff -k OLDDIR -k NEWDIR old.yaml new.yaml` " +
			"with old.yaml from `kustomize build --enable-alpha-plugins OLDDIR` (and the same for NEW), or use diff --git, which builds each revision with kustomize",
	}[name]
	return usage("%s: %v: reading its directory's files would answer wrongly; %s", name, err, how)
}

// readPaths reads the items of every path, each YAML file of a directory (recursively) on its own so that every
// problem names its file. Kustomization and Kptfile objects are build files, not resources, and a RenderConfig
// among the inputs is the function config (unless -c names one), so none of them is an item. It refuses what
// would make the answer depend on the order of the files (one object twice, two RenderConfigs) and a directory
// whose kustomization only kustomize can build (*kustomization.NeedsBuild).
//
// A PATH "-" is a YAML stream on stdin (nil: none to read).
func readPaths(paths []string, configPath string, stdin io.Reader) ([]*yaml.RNode, *yaml.RNode, error) {
	var items []*yaml.RNode
	var fnConfig *yaml.RNode
	configFile := ""
	seen := map[string]string{} // object identity -> the file that holds it
	for _, p := range paths {
		files, err := yamlFiles(p, stdin)
		if err != nil {
			return nil, nil, err
		}
		for _, file := range files {
			nodes, err := readFile(file, stdin)
			if err != nil {
				return nil, nil, err
			}
			for _, n := range nodes {
				switch n.GetKind() {
				case "Kustomization", "Component", "Kptfile":
					continue
				case "RenderConfig":
					if configPath != "" {
						continue
					}
					if fnConfig != nil {
						return nil, nil, fmt.Errorf("two function configs: RenderConfig %s in %s and RenderConfig %s in %s; "+
							"keep one, or name the one to use with -c", fnConfig.GetName(), configFile, n.GetName(), file)
					}
					fnConfig, configFile = n, file
					continue
				}
				if id := identity(n); id != "" {
					if first, dup := seen[id]; dup {
						return nil, nil, fmt.Errorf("%s is in both %s and %s: every YAML file of a directory is read, "+
							"and an object must be given once (is one of them an earlier render's output?)",
							describe(n), first, file)
					}
					seen[id] = file
				}
				items = append(items, n)
			}
		}
	}
	if configPath != "" {
		data, err := os.ReadFile(configPath)
		if err != nil {
			return nil, nil, err
		}
		if fnConfig, err = yaml.Parse(string(data)); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", configPath, err)
		}
	}
	return items, fnConfig, nil
}

// yamlFiles lists the files render reads for path: path itself, or the YAML files kyaml's LocalPackageReader
// would read below a directory (its .krmignore honoured). A kustomization met on the way must be one whose
// objects are its files as written (kustomization.CheckPlain).
func yamlFiles(path string, stdin io.Reader) ([]string, error) {
	if path == "-" && stdin != nil {
		return []string{path}, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var files, kustomizations []string
	skip := func(rel string) bool {
		full := filepath.Join(path, rel)
		base := filepath.Base(rel)
		if kustomization.IsFileName(base) {
			kustomizations = append(kustomizations, full)
		}
		for _, glob := range kio.DefaultMatch {
			if ok, _ := filepath.Match(glob, base); ok {
				files = append(files, full)
				break
			}
		}
		return true // read below, one file at a time
	}
	if _, err := (kio.LocalPackageReader{PackagePath: path, FileSkipFunc: skip, OmitReaderAnnotations: true}).Read(); err != nil {
		return nil, err
	}
	for _, k := range kustomizations {
		if err := kustomization.CheckPlain(k, path); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// readFile reads the objects of one YAML file ("-": stdin); every error names the file, and a YAML error its line
// in the file.
func readFile(file string, stdin io.Reader) ([]*yaml.RNode, error) {
	var data []byte
	var err error
	if file == "-" && stdin != nil {
		if isTerminal(stdin) {
			return nil, errStdinTerminal
		}
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not YAML text (it holds a NUL byte or bytes that are not UTF-8: a binary file?)", file)
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %s", file, yamlError(data, err))
	}
	for i, n := range nodes {
		if k := n.YNode().Kind; k != yaml.MappingNode {
			what := map[yaml.Kind]string{yaml.SequenceNode: "a YAML list", yaml.ScalarNode: "a bare value"}[k]
			if what == "" {
				what = "not a mapping"
			}
			return nil, fmt.Errorf("%s: document %d is %s, not a Kubernetes object (a mapping with apiVersion, kind "+
				"and metadata)", file, i+1, what)
		}
		// Two objects run together (files joined without a "---" line) make one mapping with every key twice.
		seen := map[string]bool{}
		content := n.YNode().Content
		for k := 0; k+1 < len(content); k += 2 {
			key := content[k].Value
			if seen[key] {
				return nil, fmt.Errorf("%s: document %d has the key %q twice: are two objects run together without "+
					"a --- line between them?", file, i+1, key)
			}
			seen[key] = true
		}
	}
	return nodes, nil
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
