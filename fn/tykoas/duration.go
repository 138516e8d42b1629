package tykoas

import (
	"strconv"
	"time"
)

// FormatDuration writes d as Tyk 5.14's enforceTimeout.duration takes it: minutes, seconds and milliseconds,
// each only when not zero ("500ms", "1s500ms", "90m"), which is also how Tyk writes a duration back (its
// ReadableDuration) below an hour. Tyk's schema has no hours (its pattern is m, s, ms), so an hour is written as
// 60m; Tyk lists such a value back with hours ("1h30m"). Below a millisecond is dropped: Gateway API durations
// have none.
func FormatDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	var b []byte
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if n := d / u.unit; n > 0 {
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, u.name...)
			d -= n * u.unit
		}
	}
	return string(b)
}
