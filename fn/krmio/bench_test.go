package krmio_test

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
)

// The writers compared on the render's output for 1,000 generated routes: kio's (what framework.Execute runs)
// and krmio's. Run with -cpu 1,2 to see what the second core adds.

var rendered = sync.OnceValues(func() ([]*yaml.RNode, *kio.ByteReadWriter) {
	var in bytes.Buffer
	resourcelist.Generate(&in, 1000, 1)
	rw := &kio.ByteReadWriter{Reader: &in, KeepReaderAnnotations: true}
	items, err := rw.Read()
	if err != nil {
		panic(err)
	}
	out, err := fn.Render(items, config.Default())
	if err != nil {
		panic(err)
	}
	rw.Writer = io.Discard
	return out.Items, rw
})

func BenchmarkWriteKio(b *testing.B) {
	items, rw := rendered()
	for b.Loop() {
		if err := rw.Write(items); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteKrmio(b *testing.B) {
	items, rw := rendered()
	for b.Loop() {
		if err := krmio.Write(rw, items); err != nil {
			b.Fatal(err)
		}
	}
}
