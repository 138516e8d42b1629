package parallel

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMapKeepsOrder(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 17, 1000} {
		got := Map(n, func(i int) int { return i * i })
		require.Len(t, got, n)
		for i, v := range got {
			require.Equal(t, i*i, v)
		}
	}
}

func TestMapRaisesAPanicInTheCaller(t *testing.T) {
	require.PanicsWithValue(t, "boom", func() {
		Map(1000, func(i int) int {
			if i == 500 {
				panic("boom")
			}
			return i
		})
	})
}
