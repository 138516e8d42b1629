package target

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

const (
	gatewayAPIs   = "/tyk/apis/oas"
	gatewayCerts  = "/tyk/certs"
	gatewayReload = "/tyk/reload/group"
)

// gateway is the open-source Tyk Gateway API.
type gateway struct{ c *client }

func (g *gateway) Mode() Mode { return ModeCE }

func (g *gateway) Describe() string { return "Tyk Gateway at " + g.c.base }

// List reads GET /tyk/apis/oas, a JSON array of the loaded OAS APIs.
func (g *gateway) List(ctx context.Context) ([]plan.Actual, error) {
	r := request{method: http.MethodGet, path: gatewayAPIs}
	resp, err := g.c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if err := expect(r, resp, http.StatusOK); err != nil {
		return nil, err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(resp.body, &list); err != nil {
		return nil, fmt.Errorf("GET %s: the answer is not a list of APIs: %w", r.path, err)
	}
	out := make([]plan.Actual, 0, len(list))
	seen := map[string]bool{}
	for _, raw := range list {
		a, err := actual(raw)
		if err != nil {
			return nil, fmt.Errorf("GET %s: %w", r.path, err)
		}
		if !seen[a.ID] {
			seen[a.ID] = true
			out = append(out, a)
		}
	}
	return out, nil
}

func (g *gateway) Create(ctx context.Context, id string, body []byte) error {
	return upsert(ctx, g.c, gatewayAPIs, id, body, g.Update)
}

func (g *gateway) Update(ctx context.Context, id string, body []byte) error {
	r := request{method: http.MethodPut, path: gatewayAPIs + "/" + url.PathEscape(id), body: body}
	resp, err := g.c.do(ctx, r)
	if err != nil {
		return err
	}
	if is2xx(resp.status) {
		return nil
	}
	return expect(r, resp)
}

func (g *gateway) Delete(ctx context.Context, id string) error {
	r := request{method: http.MethodDelete, path: gatewayAPIs + "/" + url.PathEscape(id)}
	resp, err := g.c.do(ctx, r)
	if err != nil {
		return err
	}
	if is2xx(resp.status) || resp.status == http.StatusNotFound {
		return nil
	}
	return expect(r, resp)
}

// UploadCertificate posts the raw PEM to /tyk/certs?org_id=ORG.
func (g *gateway) UploadCertificate(ctx context.Context, pem []byte, org string) (string, bool, error) {
	r := request{method: http.MethodPost, path: gatewayCerts + "?org_id=" + url.QueryEscape(org), body: pem,
		contentType: "application/x-pem-file"}
	return uploadResult(ctx, g.c, r)
}

func (g *gateway) CertificateExists(ctx context.Context, id, org string) (bool, error) {
	return certificateExists(ctx, g.c, request{method: http.MethodGet,
		path: gatewayCerts + "/" + url.PathEscape(id) + "?org_id=" + url.QueryEscape(org)})
}

// Reload asks every Gateway of the group to load the changed APIs.
func (g *gateway) Reload(ctx context.Context) error {
	r := request{method: http.MethodGet, path: gatewayReload}
	resp, err := g.c.do(ctx, r)
	if err != nil {
		return err
	}
	return expect(r, resp, http.StatusOK)
}
