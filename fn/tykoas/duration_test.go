package tykoas

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestFormatDuration(t *testing.T) {
	for in, want := range map[string]string{
		"500ms": "500ms", "1500ms": "1s500ms", "2s": "2s", "61s": "1m1s", "90m": "90m", "1h30m500ms": "90m500ms",
		"1ms": "1ms", "0s": "0s",
	} {
		d, err := time.ParseDuration(in)
		assert.NoError(t, err)
		assert.Equal(t, want, FormatDuration(d), in)
	}
}
