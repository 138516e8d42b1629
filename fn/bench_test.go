package fn

// Benchmarks of the render's stages on a generated fleet (bench/resourcelist: 1,000 routes by default; set
// GATEWAY2TYK_BENCH_ROUTES for another size, GATEWAY2TYK_BENCH_HOSTNAMES for routes with several hostnames, the
// fleet whose output is 14x its input). make bench measures the binary end to end; these say where the
// time goes inside it:
//
//	go test -run '^$' -bench . -benchmem ./fn/
//	GATEWAY2TYK_BENCH_ROUTES=10000 go test -run '^$' -bench KRM -benchtime 1x \
//	    -cpuprofile cpu.prof -memprofile mem.prof ./fn/

import (
	"bytes"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/basedoc"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/operatorcontext"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
)

var benchInput = sync.OnceValue(func() []byte {
	n := 1000
	if s := os.Getenv("GATEWAY2TYK_BENCH_ROUTES"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	var shape resourcelist.Shape
	if s := os.Getenv("GATEWAY2TYK_BENCH_HOSTNAMES"); s != "" {
		shape.Hostnames, _ = strconv.Atoi(s)
	}
	var b bytes.Buffer
	resourcelist.GenerateShape(&b, n, 1, shape)
	return b.Bytes()
})

// benchRead reads the generated ResourceList as framework.Execute does.
func benchRead(b *testing.B) (items []*yaml.RNode, rw *kio.ByteReadWriter) {
	b.Helper()
	rw = &kio.ByteReadWriter{Reader: bytes.NewReader(benchInput()), KeepReaderAnnotations: true}
	items, err := rw.Read()
	if err != nil {
		b.Fatal(err)
	}
	return items, rw
}

// BenchmarkParse is the YAML parse of the ResourceList (kio.ByteReadWriter.Read).
func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchInput())))
	for b.Loop() {
		benchRead(b)
	}
}

// BenchmarkRead is the read stage: typed decode, defaults and validation of the items the render reads.
func BenchmarkRead(b *testing.B) {
	items, _ := benchRead(b)
	for b.Loop() {
		read.Items(items, apiserver.Standard)
	}
}

// BenchmarkAttach is the attachment stage.
func BenchmarkAttach(b *testing.B) {
	items, _ := benchRead(b)
	in := read.Items(items, apiserver.Standard)
	env := operatorcontext.New(in.Inventory)
	for b.Loop() {
		attachment.Attach(in.Inventory, config.DefaultControllerName, env)
	}
}

// BenchmarkTranslate is the translation (documents built, not yet encoded).
func BenchmarkTranslate(b *testing.B) {
	items, _ := benchRead(b)
	in := read.Items(items, apiserver.Standard)
	env := operatorcontext.New(in.Inventory)
	bases := basedoc.Resolve(in.Inventory)
	for b.Loop() {
		b.StopTimer()
		att := attachment.Attach(in.Inventory, config.DefaultControllerName, env)
		b.StartTimer()
		translate.Translate(att, env, bases)
	}
}

// BenchmarkEmit is the emitted objects: each API's document encoded and its ConfigMap built.
func BenchmarkEmit(b *testing.B) {
	items, _ := benchRead(b)
	in := read.Items(items, apiserver.Standard)
	env := operatorcontext.New(in.Inventory)
	tr := translate.Translate(attachment.Attach(in.Inventory, config.DefaultControllerName, env), env, basedoc.Resolve(in.Inventory))
	cfg := config.Default()
	for b.Loop() {
		if _, _, err := emitAPIs(tr, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender is fn.Render: every stage from items to output items.
func BenchmarkRender(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		items, _ := benchRead(b) // Render writes status onto the items: each run gets fresh ones
		b.StartTimer()
		if _, err := Render(items, config.Default()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite is the output written as the binary writes it (krmio.Write), after a render.
func BenchmarkWrite(b *testing.B) {
	items, rw := benchRead(b)
	out, err := Render(items, config.Default())
	if err != nil {
		b.Fatal(err)
	}
	rw.Writer = io.Discard
	for b.Loop() {
		if err := krmio.Write(rw, out.Items); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKRM is the whole KRM function as the binary runs it: read, render, write.
func BenchmarkKRM(b *testing.B) {
	b.SetBytes(int64(len(benchInput())))
	for b.Loop() {
		rw := &kio.ByteReadWriter{Reader: bytes.NewReader(benchInput()), Writer: io.Discard, KeepReaderAnnotations: true}
		if err := krmio.Execute(Processor{}, rw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaseline is the no-op function on the same framework (bench/noop): what reading and writing the
// ResourceList costs with kyaml's own I/O.
func BenchmarkBaseline(b *testing.B) {
	b.SetBytes(int64(len(benchInput())))
	noop := framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })
	for b.Loop() {
		rw := &kio.ByteReadWriter{Reader: bytes.NewReader(benchInput()), Writer: io.Discard, KeepReaderAnnotations: true}
		if err := framework.Execute(noop, rw); err != nil {
			b.Fatal(err)
		}
	}
}
