// Command gen writes a realistic, deterministic KRM ResourceList for benchmarking gateway2tyk:
//
//	go run ./bench/gen -routes 10000 -seed 1 > bench/out/10000.yaml
//	go run ./bench/gen -routes 10000 -hostnames 3 > bench/out/10000-h3.yaml   # several hostnames per route
//	go run ./bench/gen -routes 1000 -app bench/out/app-1000                    # the same fleet as applications
//	go run ./bench/gen -routes 10000 -heavy > bench/out/10000-heavy.yaml       # a filter and 3-4 backends a rule
//	go run ./bench/gen -routes 10000 -flow > bench/out/10000-flow.yaml         # written as people write YAML
//
// See package resourcelist for what is in it. With -app, the fleet's items are written as the applications a
// pipeline reads (see package resourcelist's WriteApps).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
)

func main() {
	routes := flag.Int("routes", 1000, "number of HTTPRoutes")
	seed := flag.Uint64("seed", 1, "random seed (the same seed and size give the same bytes)")
	hostnames := flag.Int("hostnames", 1, "hostnames of each route with a single parent (each makes its own APIs)")
	heavy := flag.Bool("heavy", false, "give every rule a filter and three or four weighted backends")
	flow := flag.Bool("flow", false, "write the items as people write them: small collections in flow style, comments")
	app := flag.String("app", "", "write the fleet as application directories under this directory instead of a ResourceList on stdout")
	profile := flag.String("profile", "", "the RenderConfig's spec.profile (default: none, the operator profile)")
	flag.Parse()
	if *routes < 1 || *hostnames < 1 {
		fmt.Fprintln(os.Stderr, "gen: -routes and -hostnames must be at least 1")
		os.Exit(2)
	}
	shape := resourcelist.Shape{Hostnames: *hostnames, Heavy: *heavy, Flow: *flow, Profile: *profile}
	if *app != "" {
		var b bytes.Buffer
		resourcelist.GenerateShape(&b, *routes, *seed, shape)
		if err := resourcelist.WriteApps(*app, &b); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if *flow {
		var b bytes.Buffer
		resourcelist.GenerateShape(&b, *routes, *seed, shape)
		if err := resourcelist.Flow(w, &b); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	} else {
		resourcelist.GenerateShape(w, *routes, *seed, shape)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
