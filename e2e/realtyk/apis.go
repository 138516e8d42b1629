package realtyk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// call sends one request to the Gateway's own API with the secret and decodes a JSON answer into out (when
// not nil). A status other than 2xx is an error that carries the body.
func (g *Gateway) call(method, path string, body []byte, out any) error {
	req, err := http.NewRequest(method, g.URL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("x-tyk-authorization", g.Secret)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return nil
}

// UploadCertificate puts a PEM certificate and its key into the Gateway's Certificate Store for the
// organisation org (POST /tyk/certs?org_id=), as sync does; the store names it org + hex SHA-256 of the leaf.
func (g *Gateway) UploadCertificate(org string, pem []byte) error {
	return g.call(http.MethodPost, "/tyk/certs?org_id="+url.QueryEscape(org), pem, nil)
}

// LoadedIDs lists the IDs of the APIs the Gateway has loaded (GET /tyk/apis/oas), sorted.
func (g *Gateway) LoadedIDs() ([]string, error) {
	var docs []struct {
		Tyk struct {
			Info struct {
				ID string `json:"id"`
			} `json:"info"`
		} `json:"x-tyk-api-gateway"`
	}
	if err := g.call(http.MethodGet, "/tyk/apis/oas", nil, &docs); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(docs))
	for _, d := range docs {
		ids = append(ids, d.Tyk.Info.ID)
	}
	sort.Strings(ids)
	return ids, nil
}

// Replace makes docs (Tyk OAS documents, by API ID) the Gateway's only APIs: it deletes what is loaded, creates
// each document with POST /tyk/apis/oas, reloads, and waits until the Gateway lists exactly those IDs. A
// document the Gateway refuses is an error that names the API and carries Tyk's answer.
func (g *Gateway) Replace(docs map[string][]byte) error {
	loaded, err := g.LoadedIDs()
	if err != nil {
		return err
	}
	for _, id := range loaded {
		if err := g.call(http.MethodDelete, "/tyk/apis/oas/"+id, nil, nil); err != nil {
			return err
		}
	}
	want := make([]string, 0, len(docs))
	for id := range docs {
		want = append(want, id)
	}
	sort.Strings(want)
	for _, id := range want {
		if err := g.call(http.MethodPost, "/tyk/apis/oas", docs[id], nil); err != nil {
			return fmt.Errorf("API %s: %w", id, err)
		}
	}
	return g.reloadUntil(want)
}

// reloadUntil asks for a reload and waits until the loaded APIs are want: the reload is asynchronous, and a
// request sent before it ends would meet the old set.
func (g *Gateway) reloadUntil(want []string) error {
	if err := g.call(http.MethodGet, "/tyk/reload?block=true", nil, nil); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	var got []string
	for time.Now().Before(deadline) {
		// Tyk swaps in the new router before it replaces the set it lists (loadApps), so once the listing
		// shows the new set, requests meet the new router.
		var err error
		if got, err = g.LoadedIDs(); err == nil && slices.Equal(got, want) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("after the reload the Gateway lists %v, want %v", got, want)
}
