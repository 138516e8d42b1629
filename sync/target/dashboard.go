package target

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// maxPages guards against a Dashboard that announces an absurd page count.
const maxPages = 10000

// dashboard is the Tyk Dashboard API.
type dashboard struct{ c *client }

func (d *dashboard) Mode() Mode { return ModePro }

func (d *dashboard) Describe() string { return "Tyk Dashboard at " + d.c.base }

// Version is unknown: the Dashboard's published API has no operation that says its release (nor that of the
// Gateways it feeds).
func (d *dashboard) Version(context.Context) (string, error) { return "", nil }

// wrapper is one API of the Dashboard's listing (ApiDefinitionWrapper): the classic definition, which names the
// API and says whether it is a Tyk OAS API, and, for one, its OAS document.
type wrapper struct {
	Definition struct {
		APIID string `json:"api_id"`
		IsOAS bool   `json:"is_oas"`
	} `json:"api_definition"`
	OAS json.RawMessage `json:"oas"`
}

// List reads every page of GET /api/apis?p=N ({"apis": [ApiDefinitionWrapper], "pages": N}, pages of the
// Dashboard's page_size). Any page that fails, cannot be read, or comes back empty before the announced last
// page makes the whole listing fail: a partial listing must not be planned from. An OAS API whose wrapper does
// not carry its document is read with GET /api/apis/oas/{apiId}, since ownership is read from the document.
func (d *dashboard) List(ctx context.Context) ([]plan.Actual, error) {
	var all []plan.Actual
	seen := map[string]bool{}
	pages := 1
	for p := 1; p <= pages; p++ {
		r := dashboardList.request("", url.Values{"p": {strconv.Itoa(p)}}, nil, "")
		resp, err := d.c.do(ctx, r)
		if err != nil {
			return nil, err
		}
		if err := expect(r, resp, http.StatusOK); err != nil {
			return nil, err
		}
		var page struct {
			APIs  []wrapper `json:"apis"`
			Pages int       `json:"pages"`
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
		for _, w := range page.APIs {
			id := w.Definition.APIID
			if id == "" {
				return nil, fmt.Errorf("GET %s: an API in the listing has no api_definition.api_id", r.path)
			}
			if seen[id] { // an API created meanwhile can shift another onto the next page
				continue
			}
			seen[id] = true
			a := plan.Actual{ID: id}
			switch {
			case !w.Definition.IsOAS:
				// A classic API: never ours, but its ID is taken, so it is listed without a document (no marker).
			case hasDocument(w.OAS):
				a.Document = w.OAS
			default:
				if a.Document, err = d.get(ctx, id); err != nil {
					return nil, err
				}
			}
			all = append(all, a)
		}
	}
	return all, nil
}

// hasDocument reports whether a listing carried an OAS document (not absent, null or empty).
func hasDocument(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && len(m) > 0
}

// get reads one OAS API's document.
func (d *dashboard) get(ctx context.Context, id string) ([]byte, error) {
	r := dashboardGet.request(id, nil, nil, "")
	resp, err := d.c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if err := expect(r, resp, http.StatusOK); err != nil {
		return nil, err
	}
	return resp.body, nil
}

func (d *dashboard) Create(ctx context.Context, id string, body []byte) error {
	return upsert(ctx, d.c, dashboardCreate.request("", nil, body, ""), id, body, d.Update)
}

func (d *dashboard) Update(ctx context.Context, id string, body []byte) error {
	return write(ctx, d.c, dashboardUpdate.request(id, nil, body, ""))
}

func (d *dashboard) Delete(ctx context.Context, id string) error {
	return remove(ctx, d.c, dashboardDelete.request(id, nil, nil, ""))
}

// UploadCertificate posts the PEM as the multipart file field "file".
func (d *dashboard) UploadCertificate(ctx context.Context, pem []byte, _ string) (string, bool, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile("file", "cert.pem")
	if err != nil {
		return "", false, err
	}
	if _, err := part.Write(pem); err != nil {
		return "", false, err
	}
	if err := w.Close(); err != nil {
		return "", false, err
	}
	return uploadResult(ctx, d.c, dashboardCertAdd.request("", nil, buf.Bytes(), w.FormDataContentType()))
}

func (d *dashboard) CertificateExists(ctx context.Context, id, _ string) (bool, error) {
	return certificateExists(ctx, d.c, dashboardCertGet.request(id, nil, nil, ""))
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

// write sends an update: any 2xx is success.
func write(ctx context.Context, c *client, r request) error {
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	if is2xx(resp.status) {
		return nil
	}
	return expect(r, resp)
}

// remove sends a delete: 404 is success too (a retried delete whose first attempt went through), and so is an
// answer the request marks final (a Gateway's "Delete failed" for a file already gone).
func remove(ctx context.Context, c *client, r request) error {
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	if is2xx(resp.status) || resp.status == http.StatusNotFound || (r.final != nil && r.final(resp.status, resp.body)) {
		return nil
	}
	return expect(r, resp)
}
