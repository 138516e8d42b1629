// Command gen writes a realistic, deterministic KRM ResourceList for benchmarking gateway2tyk:
//
//	go run ./bench/gen -routes 10000 -seed 1 > bench/out/10000.yaml
//
// See package resourcelist for what is in it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
)

func main() {
	routes := flag.Int("routes", 1000, "number of HTTPRoutes")
	seed := flag.Uint64("seed", 1, "random seed (the same seed and size give the same bytes)")
	flag.Parse()
	if *routes < 1 {
		fmt.Fprintln(os.Stderr, "gen: -routes must be at least 1")
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	resourcelist.Generate(w, *routes, *seed)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
