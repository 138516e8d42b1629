package target

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// Mode selects the target.
type Mode string

// The modes, as TYK_MODE and Tyk Operator name them.
const (
	ModePro Mode = "pro" // Tyk Dashboard
	ModeCE  Mode = "ce"  // the open-source Tyk Gateway
)

// ParseMode reads a mode; "oss" is accepted for ce, as Tyk Operator does.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pro":
		return ModePro, nil
	case "ce", "oss":
		return ModeCE, nil
	}
	return "", fmt.Errorf("must be pro (Tyk Dashboard) or ce (open-source Tyk Gateway) (got %q)", s)
}

// Settings is the connection to a target.
type Settings struct {
	Mode               Mode
	URL                string
	Auth               string
	Org                string
	InsecureSkipVerify bool
	// NodeReload makes the Gateway's reload that of this Gateway alone (GET /tyk/reload) instead of its group's
	// (GET /tyk/reload/group, a pub/sub message to every Gateway sharing its Redis): for a sync that writes to
	// each replica of a data plane itself, and reloads and checks each.
	NodeReload bool
}

// Retry is the retry policy. Zero fields take the defaults.
type Retry struct {
	// Attempts per call, the first included (default 5).
	Attempts int
	// Budget is the number of retries the whole run may spend (default 60).
	Budget int
	// Base and Max bound the backoff: Base·2^(n-1), at most Max, with jitter (defaults 250ms and 5s).
	Base, Max time.Duration
	// Sleep waits; tests replace it so that no test really sleeps. The default honours the context.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Options tune the clients.
type Options struct {
	// HTTPClient is used for every call; its transport is replaced when InsecureSkipVerify is set.
	HTTPClient *http.Client
	// Timeout of each attempt (default 30s).
	Timeout time.Duration
	Retry   Retry
}

// Target is a Tyk Dashboard or open-source Gateway.
type Target interface {
	// Describe names the target for messages: "Tyk Dashboard at https://...".
	Describe() string
	// Mode says which kind of target it is.
	Mode() Mode
	// List returns every OAS API of the target, or an error when the listing failed or may be partial.
	List(ctx context.Context) ([]plan.Actual, error)
	Create(ctx context.Context, id string, body []byte) error
	Update(ctx context.Context, id string, body []byte) error
	Delete(ctx context.Context, id string) error
	// UploadCertificate adds a PEM bundle (certificate and key) to the certificate store and returns its ID;
	// existed is true when the store had it already.
	UploadCertificate(ctx context.Context, pem []byte, org string) (id string, existed bool, err error)
	// CertificateExists reports whether the certificate store has a certificate.
	CertificateExists(ctx context.Context, id, org string) (bool, error)
	// Version is the release the target says it runs ("" when its API does not say).
	Version(ctx context.Context) (string, error)
	// Reload makes the changes live: the Gateway's group reload; nothing for the Dashboard, which pushes
	// changes to its Gateways itself.
	Reload(ctx context.Context) error
}

// New returns the client of the target the settings name.
func New(s Settings, o Options) (Target, error) {
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the Tyk URL must be an absolute http or https URL (got %q)", s.URL)
	}
	if s.Auth == "" {
		return nil, errors.New("the Tyk credential (TYK_AUTH) is empty")
	}
	c := newClient(strings.TrimRight(s.URL, "/"), s, o)
	switch s.Mode {
	case ModePro:
		c.authHeader = "authorization"
		return &dashboard{c}, nil
	case ModeCE:
		c.authHeader = "x-tyk-authorization"
		return &gateway{c: c, node: s.NodeReload}, nil
	}
	return nil, fmt.Errorf("the Tyk mode must be pro or ce (got %q)", s.Mode)
}

// Error is a call that failed for good.
type Error struct {
	Method, Path string
	Status       int // 0 when no answer came
	Message      string
	Attempts     int
	Err          error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: ", e.Method, e.Path)
	switch {
	case e.Status != 0:
		b.WriteString(strconv.Itoa(e.Status) + " " + http.StatusText(e.Status))
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// client is what both targets share: the base URL, the credential, the timeouts and the retries.
type client struct {
	base       string
	auth       string
	authHeader string
	http       *http.Client
	timeout    time.Duration
	retry      Retry
	budget     atomic.Int64
}

func newClient(base string, s Settings, o Options) *client {
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	if s.InsecureSkipVerify {
		tr, _ := http.DefaultTransport.(*http.Transport)
		if t, ok := hc.Transport.(*http.Transport); ok {
			tr = t
		}
		tr = tr.Clone()
		if tr.TLSClientConfig == nil {
			tr.TLSClientConfig = &tls.Config{}
		}
		tr.TLSClientConfig.InsecureSkipVerify = true //nolint:gosec // asked for by TYK_TLS_INSECURE_SKIP_VERIFY
		copied := *hc
		copied.Transport = tr
		hc = &copied
	}
	c := &client{base: base, auth: s.Auth, http: hc, timeout: o.Timeout, retry: o.Retry}
	if c.timeout <= 0 {
		c.timeout = 30 * time.Second
	}
	if c.retry.Attempts <= 0 {
		c.retry.Attempts = 5
	}
	if c.retry.Budget <= 0 {
		c.retry.Budget = 60
	}
	if c.retry.Base <= 0 {
		c.retry.Base = 250 * time.Millisecond
	}
	if c.retry.Max <= 0 {
		c.retry.Max = 5 * time.Second
	}
	if c.retry.Sleep == nil {
		c.retry.Sleep = sleep
	}
	c.budget.Store(int64(c.retry.Budget))
	return c
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// request is one call: the body is rebuilt for every attempt.
type request struct {
	method, path string
	body         []byte
	contentType  string
	// final, when set, marks an answer that is not retried even though its status would be.
	final func(status int, body []byte) bool
}

// response is a final answer (any status that is not retried).
type response struct {
	status   int
	body     []byte
	attempts int
}

// message extracts the message of a Tyk error body ({"status":"error","message":...} from the Gateway,
// {"Status":"Error","Message":...} from the Dashboard; encoding/json matches either case).
func message(body []byte) string {
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		return m.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// do sends a request, retrying what may succeed on a later attempt, and returns the final answer. It returns an
// *Error when no final answer came (connection errors, timeouts, 429 and 5xx to the last attempt).
func (c *client) do(ctx context.Context, r request) (*response, error) {
	var last *Error
	for attempt := 1; ; attempt++ {
		status, body, retryAfter, err := c.once(ctx, r)
		if err == nil && ((status != http.StatusTooManyRequests && status < 500) || (r.final != nil && r.final(status, body))) {
			return &response{status: status, body: body, attempts: attempt}, nil
		}
		last = &Error{Method: r.method, Path: r.path, Status: status, Attempts: attempt, Err: err}
		if err == nil {
			last.Message = message(body)
		}
		if ctx.Err() != nil || attempt >= c.retry.Attempts {
			return nil, last
		}
		if c.budget.Add(-1) < 0 {
			last.Message = strings.TrimSpace(last.Message + " (the run's retry budget is spent)")
			if last.Status == 0 && last.Err != nil {
				last.Err = fmt.Errorf("%w (the run's retry budget is spent)", last.Err)
			}
			return nil, last
		}
		wait := c.backoff(attempt)
		if retryAfter > 0 {
			wait = min(retryAfter, c.retry.Max)
		}
		if err := c.retry.Sleep(ctx, wait); err != nil {
			return nil, last
		}
	}
}

func (c *client) backoff(attempt int) time.Duration {
	d := c.retry.Base << (attempt - 1)
	if d <= 0 || d > c.retry.Max {
		d = c.retry.Max
	}
	// Equal jitter: half fixed, half random, so that concurrent callers spread out.
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// once makes one attempt under its own timeout.
func (c *client) once(ctx context.Context, r request) (int, []byte, time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(actx, r.method, c.base+r.path, body)
	if err != nil {
		return 0, nil, 0, err
	}
	req.Header.Set(c.authHeader, c.auth)
	req.Header.Set("Accept", "application/json")
	if r.body != nil {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		// The answer broke off: as retryable as a connection error.
		return 0, nil, 0, fmt.Errorf("reading the answer: %w", err)
	}
	var retryAfter time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		retryAfter = time.Duration(s) * time.Second
	}
	return resp.StatusCode, data, retryAfter, nil
}

// expect turns an answer that is not one of the wanted statuses into an *Error.
func expect(r request, resp *response, ok ...int) error {
	for _, s := range ok {
		if resp.status == s {
			return nil
		}
	}
	return &Error{Method: r.method, Path: r.path, Status: resp.status, Message: message(resp.body), Attempts: resp.attempts}
}

func is2xx(status int) bool { return status >= 200 && status < 300 }

// alreadyExists recognises Tyk's answer to a create of something it has (an API ID or a certificate).
func alreadyExists(resp *response) bool {
	return resp.status == http.StatusConflict ||
		(resp.status >= 400 && resp.status < 500 && strings.Contains(strings.ToLower(message(resp.body)), "already exist"))
}

// certificateID reads the id of a certificate upload's answer: {"id": "...", "status": "ok", ...}.
func certificateID(body []byte) string {
	var m struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(body, &m)
	return m.ID
}

// upsert sends a create, and updates instead when the target says the API exists already (a create retried
// after an attempt that reached Tyk, or a Gateway that has the API loaded but did not list it yet).
func upsert(ctx context.Context, c *client, r request, id string, body []byte,
	update func(context.Context, string, []byte) error) error {
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	if is2xx(resp.status) {
		return nil
	}
	if alreadyExists(resp) {
		return update(ctx, id, body)
	}
	return expect(r, resp)
}
