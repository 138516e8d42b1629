// Package parallel runs independent steps of the render on every core, with results in input order, so that
// the output never depends on scheduling.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// batch is how many indexes a worker takes at a time: enough to keep the hand-out cheap, few enough to balance.
const batch = 16

// Map returns f(0), ..., f(n-1), computed on up to GOMAXPROCS goroutines. f must be safe to call concurrently
// for different indexes. A panic in f is re-raised in the caller (the command turns it into one line).
func Map[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	workers := min(runtime.GOMAXPROCS(0), (n+batch-1)/batch)
	if workers <= 1 {
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var panicked any
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { panicked = r })
				}
			}()
			for {
				start := int(next.Add(batch)) - batch
				if start >= n {
					return
				}
				for i := start; i < min(start+batch, n); i++ {
					out[i] = f(i)
				}
			}
		}()
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
	return out
}
