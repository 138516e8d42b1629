package apidiff_test

// The cost of a diff against the cost of one render, on a generated fleet and the same fleet with 10 routes
// changed (bench/resourcelist, bench/fleetchange; 1,000 routes unless GATEWAY2TYK_BENCH_ROUTES says otherwise):
//
//	GATEWAY2TYK_BENCH_ROUTES=10000 go test -run '^$' -bench . -benchtime 3x ./fn/apidiff/
//
// make bench-diff (bench/diff.sh) measures the binaries end to end and prints the table of BENCHMARKS.md.

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/bench/fleetchange"
	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/apidiff"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
)

var fleets = sync.OnceValues(func() ([]byte, []byte) {
	n := 1000
	if s := os.Getenv("GATEWAY2TYK_BENCH_ROUTES"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	var old bytes.Buffer
	resourcelist.Generate(&old, n, 1)
	changed, err := fleetchange.Change(old.Bytes(), 10)
	if err != nil {
		panic(err)
	}
	return old.Bytes(), changed
})

// BenchmarkRender is one render: the KRM function on the fleet, output discarded.
func BenchmarkRender(b *testing.B) {
	old, _ := fleets()
	for b.Loop() {
		rw := &kio.ByteReadWriter{Reader: bytes.NewReader(old), Writer: io.Discard, KeepReaderAnnotations: true}
		if err := krmio.Execute(fn.Processor{}, rw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiff is the diff of the fleet and the changed fleet: both read, both rendered, compared, the report
// written.
func BenchmarkDiff(b *testing.B) {
	old, changed := fleets()
	for b.Loop() {
		before := snapshot(b, old)
		after := snapshot(b, changed)
		r, err := apidiff.Compare(before, after, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Changed) == 0 {
			b.Fatal("the changed fleet changes no API")
		}
		if err := r.WriteText(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func snapshot(b *testing.B, data []byte) *apidiff.Snapshot {
	items, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
	if err != nil {
		b.Fatal(err)
	}
	s, err := apidiff.Load(items, nil, "")
	if err != nil {
		b.Fatal(err)
	}
	return s
}
