package target

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// gateway is the open-source Tyk Gateway API.
type gateway struct {
	c    *client
	node bool // reload this Gateway alone (Settings.NodeReload)
}

func (g *gateway) Mode() Mode { return ModeCE }

func (g *gateway) Describe() string { return "Tyk Gateway at " + g.c.base }

// Version reads GET /hello: {"status": ..., "version": "v5.3.0-dev", ...}.
func (g *gateway) Version(ctx context.Context) (string, error) {
	r := gatewayHello.request("", nil, nil, "")
	resp, err := g.c.do(ctx, r)
	if err != nil {
		return "", err
	}
	if err := expect(r, resp, http.StatusOK); err != nil {
		return "", err
	}
	var hello struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(resp.body, &hello); err != nil {
		return "", fmt.Errorf("GET %s: the answer is not a health check: %w", r.path, err)
	}
	return hello.Version, nil
}

// List reads GET /tyk/apis/oas, a JSON array of the loaded OAS APIs.
func (g *gateway) List(ctx context.Context) ([]plan.Actual, error) {
	r := gatewayList.request("", nil, nil, "")
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
		id := plan.DocumentID(raw)
		if id == "" {
			return nil, fmt.Errorf("GET %s: an API in the listing has no x-tyk-api-gateway.info.id", r.path)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, plan.Actual{ID: id, Document: []byte(raw)})
		}
	}
	return out, nil
}

func (g *gateway) Create(ctx context.Context, id string, body []byte) error {
	return upsert(ctx, g.c, gatewayCreate.request("", nil, body, ""), id, body, g.Update)
}

func (g *gateway) Update(ctx context.Context, id string, body []byte) error {
	return write(ctx, g.c, gatewayUpdate.request(id, nil, body, ""))
}

// Delete removes the API's file. A Tyk Gateway answers 500 "Delete failed" when the file is gone already
// while the API is still loaded (a delete made before a reload that has not ended; observed on the 5.4 line):
// that is the delete done, not a failure to retry. The run's wait after the reload checks that the API is
// gone indeed.
func (g *gateway) Delete(ctx context.Context, id string) error {
	r := gatewayDelete.request(id, nil, nil, "")
	r.final = fileGone
	return remove(ctx, g.c, r)
}

func fileGone(status int, body []byte) bool {
	return status == http.StatusInternalServerError && message(body) == "Delete failed"
}

// UploadCertificate posts the raw PEM (text/plain, as the description says) to /tyk/certs?org_id=ORG.
func (g *gateway) UploadCertificate(ctx context.Context, pem []byte, org string) (string, bool, error) {
	return uploadResult(ctx, g.c, gatewayCertAdd.request("", url.Values{"org_id": {org}}, pem, "text/plain"))
}

func (g *gateway) CertificateExists(ctx context.Context, id, org string) (bool, error) {
	return certificateExists(ctx, g.c, gatewayCertGet.request(id, url.Values{"org_id": {org}}, nil, ""))
}

// Reload asks every Gateway of the group (or this one alone, with Settings.NodeReload) to load the changed APIs.
// The reload is asynchronous: the run then waits until the Gateway lists what it was given.
func (g *gateway) Reload(ctx context.Context) error {
	op := gatewayReloadGroup
	if g.node {
		op = gatewayReload
	}
	r := op.request("", nil, nil, "")
	resp, err := g.c.do(ctx, r)
	if err != nil {
		return err
	}
	return expect(r, resp, http.StatusOK)
}
