// Command noop is the baseline of the benchmarks: a KRM function on the same kyaml framework as gateway2tyk
// (framework.Execute, reading the ResourceList from stdin and writing it back to stdout) whose processor does
// nothing. What it costs is what reading and writing the YAML costs.
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

func main() {
	noop := framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })
	if err := framework.Execute(noop, nil); err != nil {
		fmt.Fprintln(os.Stderr, "noop:", err)
		os.Exit(1)
	}
}
