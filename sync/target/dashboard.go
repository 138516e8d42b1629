package target

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

const (
	dashboardAPIs  = "/api/apis/oas"
	dashboardCerts = "/api/certs"
	// maxPages guards against a Dashboard that announces an absurd page count.
	maxPages = 10000
)

// dashboard is the Tyk Dashboard API.
type dashboard struct{ c *client }

func (d *dashboard) Mode() Mode { return ModePro }

func (d *dashboard) Describe() string { return "Tyk Dashboard at " + d.c.base }

// List reads every page of GET /api/apis/oas?p=N. Any page that fails, cannot be read, or comes back empty
// before the announced last page makes the whole listing fail: a partial listing must not be planned from.
func (d *dashboard) List(ctx context.Context) ([]plan.Actual, error) {
	var all []plan.Actual
	seen := map[string]bool{}
	pages := 1
	for p := 1; p <= pages; p++ {
		r := request{method: http.MethodGet, path: fmt.Sprintf("%s?p=%d", dashboardAPIs, p)}
		resp, err := d.c.do(ctx, r)
		if err != nil {
			return nil, err
		}
		if err := expect(r, resp, http.StatusOK); err != nil {
			return nil, err
		}
		var page struct {
			APIs  []json.RawMessage `json:"apis"`
			Pages int               `json:"pages"`
		}
		if err := json.Unmarshal(resp.body, &page); err != nil {
			return nil, fmt.Errorf("GET %s: the answer is not a list of APIs: %w", r.path, err)
		}
		if p == 1 {
			pages = page.Pages
			if pages > maxPages {
				return nil, fmt.Errorf("GET %s: the Dashboard announces %d pages", r.path, pages)
			}
		} else if page.Pages != pages {
			return nil, fmt.Errorf("GET %s: the page count changed from %d to %d during the listing", r.path, pages, page.Pages)
		}
		if len(page.APIs) == 0 && p < pages {
			return nil, fmt.Errorf("GET %s: page %d of %d is empty", r.path, p, pages)
		}
		for _, raw := range page.APIs {
			a, err := actual(raw)
			if err != nil {
				return nil, fmt.Errorf("GET %s: %w", r.path, err)
			}
			if !seen[a.ID] { // an API created meanwhile can shift another onto the next page
				seen[a.ID] = true
				all = append(all, a)
			}
		}
	}
	return all, nil
}

// actual reads one listed API; one without an ID makes the listing unusable.
func actual(raw json.RawMessage) (plan.Actual, error) {
	id := plan.DocumentID(raw)
	if id == "" {
		return plan.Actual{}, fmt.Errorf("an API in the listing has no x-tyk-api-gateway.info.id")
	}
	return plan.Actual{ID: id, Document: []byte(raw)}, nil
}

func (d *dashboard) Create(ctx context.Context, id string, body []byte) error {
	return upsert(ctx, d.c, dashboardAPIs, id, body, d.Update)
}

func (d *dashboard) Update(ctx context.Context, id string, body []byte) error {
	r := request{method: http.MethodPut, path: dashboardAPIs + "/" + url.PathEscape(id), body: body}
	resp, err := d.c.do(ctx, r)
	if err != nil {
		return err
	}
	if is2xx(resp.status) {
		return nil
	}
	return expect(r, resp)
}

func (d *dashboard) Delete(ctx context.Context, id string) error {
	r := request{method: http.MethodDelete, path: dashboardAPIs + "/" + url.PathEscape(id)}
	resp, err := d.c.do(ctx, r)
	if err != nil {
		return err
	}
	if is2xx(resp.status) || resp.status == http.StatusNotFound {
		return nil // 404: gone already (a retried delete whose first attempt went through)
	}
	return expect(r, resp)
}

// UploadCertificate posts the PEM as the multipart file field "cert".
func (d *dashboard) UploadCertificate(ctx context.Context, pem []byte, _ string) (string, bool, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile("cert", "cert.pem")
	if err != nil {
		return "", false, err
	}
	if _, err := part.Write(pem); err != nil {
		return "", false, err
	}
	if err := w.Close(); err != nil {
		return "", false, err
	}
	r := request{method: http.MethodPost, path: dashboardCerts, body: buf.Bytes(), contentType: w.FormDataContentType()}
	return uploadResult(ctx, d.c, r)
}

func (d *dashboard) CertificateExists(ctx context.Context, id, _ string) (bool, error) {
	return certificateExists(ctx, d.c, request{method: http.MethodGet, path: dashboardCerts + "/" + url.PathEscape(id)})
}

func (d *dashboard) Reload(context.Context) error { return nil }

func uploadResult(ctx context.Context, c *client, r request) (string, bool, error) {
	resp, err := c.do(ctx, r)
	if err != nil {
		return "", false, err
	}
	if is2xx(resp.status) {
		return certificateID(resp.body), false, nil
	}
	if alreadyExists(resp) {
		return "", true, nil
	}
	return "", false, expect(r, resp)
}

func certificateExists(ctx context.Context, c *client, r request) (bool, error) {
	resp, err := c.do(ctx, r)
	if err != nil {
		return false, err
	}
	switch {
	case resp.status == http.StatusOK:
		return true, nil
	case resp.status == http.StatusNotFound:
		return false, nil
	}
	return false, expect(r, resp)
}
