// Command diffgen writes the two sides of the diff benchmark: a generated fleet (bench/resourcelist) and the
// same fleet with some routes changed (bench/fleetchange):
//
//	go run ./bench/diffgen -routes 10000 -changed 10 -old bench/out/old.yaml -new bench/out/new.yaml
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/gateway2tyk/gateway2tyk/bench/fleetchange"
	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
)

func main() {
	routes := flag.Int("routes", 1000, "number of HTTPRoutes")
	changed := flag.Int("changed", 10, "number of routes changed on the new side")
	seed := flag.Uint64("seed", 1, "random seed")
	oldPath := flag.String("old", "", "where to write the fleet")
	newPath := flag.String("new", "", "where to write the changed fleet")
	flag.Parse()
	if *routes < 1 || *changed < 0 || *oldPath == "" || *newPath == "" {
		fmt.Fprintln(os.Stderr, "diffgen: -routes (at least 1), -changed (at least 0), -old and -new are needed")
		os.Exit(2)
	}
	var old bytes.Buffer
	resourcelist.Generate(&old, *routes, *seed)
	changedFleet, err := fleetchange.Change(old.Bytes(), *changed)
	if err == nil {
		err = os.WriteFile(*oldPath, old.Bytes(), 0o644)
	}
	if err == nil {
		err = os.WriteFile(*newPath, changedFleet, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "diffgen:", err)
		os.Exit(1)
	}
}
