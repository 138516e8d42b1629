package target

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noSleep(context.Context, time.Duration) error { return nil }

func TestNewValidates(t *testing.T) {
	_, err := New(Settings{Mode: ModePro, URL: "dashboard:3000", Auth: "k"}, Options{})
	assert.EqualError(t, err, `the Tyk URL must be an absolute http or https URL (got "dashboard:3000")`)
	_, err = New(Settings{Mode: ModePro, URL: "http://dashboard:3000"}, Options{})
	assert.EqualError(t, err, "the Tyk credential (TYK_AUTH) is empty")
	_, err = New(Settings{Mode: "x", URL: "http://dashboard:3000", Auth: "k"}, Options{})
	assert.Error(t, err)
	m, err := ParseMode("OSS")
	require.NoError(t, err)
	assert.Equal(t, ModeCE, m)
}

func TestConnectionErrorsAreRetriedThenReported(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more
	tg, err := New(Settings{Mode: ModeCE, URL: url, Auth: "k"}, Options{Retry: Retry{Attempts: 3, Sleep: noSleep}})
	require.NoError(t, err)
	_, err = tg.List(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GET /tyk/apis/oas: ")
	assert.Contains(t, err.Error(), "(after 3 attempts)")
}

func TestFinalAnswersAreNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		assert.Equal(t, "k", r.Header.Get("authorization"))
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"Status":"Error","Message":"Not authorised"}`))
	}))
	defer srv.Close()
	tg, err := New(Settings{Mode: ModePro, URL: srv.URL, Auth: "k"}, Options{Retry: Retry{Sleep: noSleep}})
	require.NoError(t, err)
	err = tg.Update(context.Background(), "gwapi-1", []byte(`{}`))
	assert.EqualError(t, err, "PUT /api/apis/oas/gwapi-1: 403 Forbidden: Not authorised")
	assert.Equal(t, int32(1), calls.Load())
}

func TestRetryAfterIsCappedByMax(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	var waited []time.Duration
	tg, err := New(Settings{Mode: ModeCE, URL: srv.URL, Auth: "k"}, Options{Retry: Retry{Max: 3 * time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }}})
	require.NoError(t, err)
	_, err = tg.List(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{3 * time.Second}, waited)
}

func TestCancelledContextStopsRetrying(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	tg, err := New(Settings{Mode: ModeCE, URL: srv.URL, Auth: "k"}, Options{Retry: Retry{Attempts: 10}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = tg.List(ctx)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 1, e.Attempts, "no attempt after the first, of the 10 allowed")
	assert.ErrorIs(t, err, context.Canceled)
}
