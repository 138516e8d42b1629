package fn

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// longRun is the length from which a run of characters without a space is cut in a result's message, and keep
// what is kept of it. Messages echo the values at fault, and a value can be anything the user wrote: a 100 kB
// hostname was printed whole. What the run is, is clear from its start; the rest of the message says why.
const (
	longRun = 200
	keep    = 64
)

// shorten cuts each run of more than longRun characters without a space to its first keep characters and says
// how much was left out.
func shorten(msg string) string {
	if len(msg) <= longRun {
		return msg
	}
	var b strings.Builder
	start := -1 // start of the current run of non-space characters
	flush := func(end int) {
		if start < 0 {
			return
		}
		run := msg[start:end]
		if utf8.RuneCountInString(run) > longRun {
			cut := 0
			for i := range run {
				if utf8.RuneCountInString(run[:i]) == keep {
					cut = i
					break
				}
			}
			// The punctuation that closes the value (a quote, a colon) stays, so the message still reads.
			tail := len(strings.TrimRight(run, `"'):;,.]}`))
			fmt.Fprintf(&b, "%s… (%d more bytes)%s", run[:cut], tail-cut, run[tail:])
		} else {
			b.WriteString(run)
		}
		start = -1
	}
	for i, r := range msg {
		if unicode.IsSpace(r) {
			flush(i)
			b.WriteRune(r)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(msg))
	return b.String()
}
