// Package targettest runs in-process fakes of the Tyk Dashboard API and of the open-source Tyk Gateway API
// (net/http/httptest) for the sync's tests. They answer the operations of Tyk's published descriptions
// (third_party/tyk/dashboard-swagger.yml, gateway-swagger.yml) in their documented shapes, which the contract
// test of sync/target checks against those files, and nothing else (the Dashboard answers 405 to a GET of
// /api/apis/oas, as the published API has only POST there). The credential header is checked, IDs come from
// x-tyk-api-gateway.info.id; the Dashboard lists with GET /api/apis?p=N ({"apis": [ApiDefinitionWrapper],
// "pages": N}, pages of its page_size, 10 by default) and adds info.dbId, info.orgId and a `servers` entry to
// what it stores. The Gateway behaves as a real open-source Tyk Gateway (the 5.4 line) was seen to: it serves
// and lists only what it has loaded, so changes show after GET /tyk/reload/group or /tyk/reload; it returns
// stored APIs with `servers` regenerated from the custom domain and listen path and `components: {}` added; a
// create of an ID it has overwrites; a delete of an API whose file is gone but which is still loaded answers
// 500 "Delete failed"; /hello says Version. Certificates get Tyk's IDs (the org followed by the hex SHA-256 of
// the leaf certificate's DER bytes); a second upload of one is refused with 403 "... already exists".
//
// Failures can be injected: FailRate makes that share of calls fail (a 500, 502, 503 or 429 before the call is
// handled, a dropped connection, or a 502 after it was handled, so that the answer is lost but the change was
// made). Which calls fail is decided from Seed, the request and how often the same request was made, so a run is
// reproducible whatever the order of concurrent calls.
package targettest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// Fake is a running fake target.
type Fake struct {
	Mode target.Mode
	Auth string
	Org  string
	// PageSize is the Dashboard's page size (default 10, the Dashboard's page_size).
	PageSize int
	// OmitListedOAS makes the Dashboard's listing carry no `oas` document, so that the client must fetch each.
	OmitListedOAS bool
	// Version is what the Gateway's /hello says (default v5.8.0).
	Version string
	// FailRate is the share of calls, 0 to 1, that fail (see the package documentation).
	FailRate float64
	// Seed makes the failures reproducible.
	Seed uint64
	// FailListing makes every listing call answer 500.
	FailListing bool
	// FailPage, when > 0, makes that page of the Dashboard's listing answer 500 (a partial listing).
	FailPage int
	// Inject, when set, is asked first for every call: a non-zero status is answered instead of handling it.
	Inject func(method, path string) int

	Server *httptest.Server

	mu       sync.Mutex
	stored   map[string][]byte // the Dashboard's APIs, or the Gateway's API files
	classic  map[string]string // the Dashboard's classic (not OAS) APIs: ID → name
	loaded   map[string][]byte // the Gateway's loaded APIs
	certs    map[string][]byte
	seen     map[string]int
	calls    []Call
	nextDBID int
}

// Call is one request the fake answered.
type Call struct {
	Method, Path string
	Status       int
	// Injected is true when the answer was an injected failure.
	Injected bool
	// The exchange, for checking it against Tyk's API descriptions.
	RequestHeader  http.Header
	RequestBody    []byte
	ResponseHeader http.Header
	ResponseBody   []byte
}

// NewDashboard starts a fake Tyk Dashboard.
func NewDashboard(t testing.TB) *Fake { return start(t, target.ModePro) }

// NewGateway starts a fake open-source Tyk Gateway.
func NewGateway(t testing.TB) *Fake { return start(t, target.ModeCE) }

func start(t testing.TB, mode target.Mode) *Fake {
	f := &Fake{Mode: mode, Auth: "secret-" + string(mode), Org: "5e9d9544a1dcd60001d0ed20", PageSize: 10, Version: "v5.8.0",
		stored: map[string][]byte{}, classic: map[string]string{}, loaded: map[string][]byte{}, certs: map[string][]byte{}, seen: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Server.Close)
	return f
}

// Settings are the settings that reach the fake.
func (f *Fake) Settings() target.Settings {
	return target.Settings{Mode: f.Mode, URL: f.Server.URL, Auth: f.Auth, Org: f.Org}
}

// Put puts an API on the target as if someone had created it (loaded at once on the Gateway).
func (f *Fake) Put(id string, doc []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stored[id] = doc
	if f.Mode == target.ModeCE {
		f.loaded[id] = doc
	}
}

// PutClassic puts a classic (not OAS) API on the Dashboard, as someone would create it there.
func (f *Fake) PutClassic(id, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.classic[id] = name
}

// Classic returns the IDs of the Dashboard's classic APIs, sorted.
func (f *Fake) Classic() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(maps.Keys(f.classic))
}

// APIs returns the APIs the target serves: the Dashboard's, or the Gateway's loaded ones.
func (f *Fake) APIs() map[string][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	src := f.stored
	if f.Mode == target.ModeCE {
		src = f.loaded
	}
	out := make(map[string][]byte, len(src))
	for k, v := range src {
		out[k] = v
	}
	return out
}

// Certificates returns the IDs in the certificate store, sorted.
func (f *Fake) Certificates() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(maps.Keys(f.certs))
}

// Calls returns the requests answered so far.
func (f *Fake) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Changes counts the calls that changed an API and were answered with success (injected failures excluded).
func (f *Fake) Changes() int {
	n := 0
	for _, c := range f.Calls() {
		if !c.Injected && c.Status < 300 && c.Method != http.MethodGet && strings.Contains(c.Path, "/apis/oas") {
			n++
		}
	}
	return n
}

// ResetCalls forgets the calls made so far.
func (f *Fake) ResetCalls() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

type recorder struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (r *recorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }

func (r *recorder) Write(b []byte) (int, error) {
	r.body = append(r.body, b...)
	return r.ResponseWriter.Write(b)
}

func (f *Fake) record(r *http.Request, body []byte, rec *recorder, injected bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := Call{Method: r.Method, Path: r.URL.RequestURI(), Injected: injected, RequestHeader: r.Header.Clone(),
		RequestBody: body}
	if rec != nil {
		c.Status, c.ResponseHeader, c.ResponseBody = rec.status, rec.Header().Clone(), rec.body
	}
	f.calls = append(f.calls, c)
}

// failure decides, reproducibly, whether and how this request fails: 0 means it does not.
func (f *Fake) failure(r *http.Request, body []byte) int {
	if f.FailRate <= 0 {
		return 0
	}
	key := r.Method + " " + r.URL.RequestURI() + " " + string(body)
	f.mu.Lock()
	f.seen[key]++
	n := f.seen[key]
	f.mu.Unlock()
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], f.Seed)
	h.Write(b[:])
	h.Write([]byte(key))
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
	x := h.Sum64()
	if float64(x%10000)/10000 >= f.FailRate {
		return 0
	}
	return int(x/10000%6) + 1
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	if f.Inject != nil {
		if status := f.Inject(r.Method, r.URL.Path); status != 0 {
			writeJSON(rec, status, f.errorBody("injected "+strconv.Itoa(status)))
			f.record(r, body, rec, true)
			return
		}
	}
	switch f.failure(r, body) {
	case 1:
		writeJSON(rec, http.StatusInternalServerError, f.errorBody("injected failure"))
		f.record(r, body, rec, true)
		return
	case 2:
		writeJSON(rec, http.StatusServiceUnavailable, f.errorBody("injected failure"))
		f.record(r, body, rec, true)
		return
	case 3:
		rec.Header().Set("Retry-After", "1")
		writeJSON(rec, http.StatusTooManyRequests, f.errorBody("slow down"))
		f.record(r, body, rec, true)
		return
	case 4:
		f.record(r, body, nil, true)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		writeJSON(rec, http.StatusBadGateway, f.errorBody("injected failure"))
		return
	case 5:
		// Handled, but the answer is lost on the way back.
		f.handle(httptest.NewRecorder(), r, body)
		writeJSON(rec, http.StatusBadGateway, f.errorBody("injected failure after the change"))
		f.record(r, body, rec, true)
		return
	}
	f.handle(rec, r, body)
	f.record(r, body, rec, false)
}

// errorBody is Tyk's error answer: ApiResponse for the Dashboard, ApiStatusMessage for the Gateway. The
// Dashboard's description shows "Meta": null in its examples but types Meta with a schema that does not allow
// null, so the fake leaves Meta out when it has none (the client never reads it).
func (f *Fake) errorBody(msg string) any {
	if f.Mode == target.ModePro {
		return map[string]any{"Status": "Error", "Message": msg}
	}
	return map[string]any{"status": "error", "message": msg}
}

func (f *Fake) okBody(msg string, extra map[string]any) any {
	var out map[string]any
	if f.Mode == target.ModePro {
		out = map[string]any{"Status": "OK", "Message": msg}
	} else {
		out = map[string]any{"status": "ok", "message": msg}
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *Fake) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	header, list, apis, certs := "authorization", "/api/apis", "/api/apis/oas", "/api/certs"
	if f.Mode == target.ModeCE {
		header, list, apis, certs = "x-tyk-authorization", "/tyk/apis/oas", "/tyk/apis/oas", "/tyk/certs"
	}
	if r.Header.Get(header) != f.Auth {
		writeJSON(w, http.StatusForbidden, f.errorBody("Attempted administrative access with invalid or missing key!"))
		return
	}
	path := r.URL.Path
	switch {
	case f.Mode == target.ModeCE && path == "/hello" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"status": "pass", "version": f.Version, "description": "Tyk GW",
			"details": map[string]any{"redis": map[string]any{"status": "pass", "componentType": "datastore"}}})
	case path == list && r.Method == http.MethodGet:
		f.list(w, r)
	case path == apis && r.Method == http.MethodPost:
		f.create(w, body)
	case path == apis:
		writeJSON(w, http.StatusMethodNotAllowed, f.errorBody("Method Not Allowed"))
	case strings.HasPrefix(path, apis+"/"):
		id := strings.TrimPrefix(path, apis+"/")
		switch r.Method {
		case http.MethodGet:
			f.get(w, id)
		case http.MethodPut:
			f.update(w, id, body)
		case http.MethodDelete:
			f.delete(w, id)
		default:
			writeJSON(w, http.StatusMethodNotAllowed, f.errorBody("Method Not Allowed"))
		}
	case path == certs && r.Method == http.MethodPost:
		f.addCert(w, r, body)
	case strings.HasPrefix(path, certs+"/") && r.Method == http.MethodGet:
		f.getCert(w, strings.TrimPrefix(path, certs+"/"))
	case f.Mode == target.ModeCE && (path == "/tyk/reload/group" || path == "/tyk/reload") && r.Method == http.MethodGet:
		f.mu.Lock()
		f.loaded = make(map[string][]byte, len(f.stored))
		for k, v := range f.stored {
			f.loaded[k] = v
		}
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "message": ""})
	default:
		writeJSON(w, http.StatusNotFound, f.errorBody("Not Found"))
	}
}

// served is the map the listing and reads see.
func (f *Fake) served() map[string][]byte {
	if f.Mode == target.ModeCE {
		return f.loaded
	}
	return f.stored
}

func (f *Fake) list(w http.ResponseWriter, r *http.Request) {
	if f.FailListing {
		writeJSON(w, http.StatusInternalServerError, f.errorBody("listing is broken"))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	src := f.served()
	ids := make([]string, 0, len(src))
	for id := range src {
		ids = append(ids, id)
	}
	if f.Mode == target.ModePro {
		for id := range f.classic {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if f.Mode == target.ModeCE {
		docs := make([]json.RawMessage, 0, len(ids))
		for _, id := range ids {
			docs = append(docs, src[id])
		}
		writeJSON(w, http.StatusOK, docs)
		return
	}
	p, err := strconv.Atoi(r.URL.Query().Get("p"))
	if err != nil || p == 0 {
		p = 1
	}
	if f.FailPage > 0 && p == f.FailPage {
		writeJSON(w, http.StatusInternalServerError, f.errorBody("page is broken"))
		return
	}
	size := max(f.PageSize, 1)
	pages := (len(ids) + size - 1) / size
	lo, hi := min((p-1)*size, len(ids)), min(p*size, len(ids))
	if p < 0 { // "Send number less than 0 to return all items."
		lo, hi = 0, len(ids)
	}
	wrappers := make([]map[string]any, 0, hi-lo)
	for _, id := range ids[lo:hi] {
		if name, ok := f.classic[id]; ok {
			wrappers = append(wrappers, map[string]any{"api_definition": map[string]any{"api_id": id, "name": name,
				"org_id": f.Org, "is_oas": false, "active": true}})
			continue
		}
		wrappers = append(wrappers, f.wrapper(id, src[id]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"apis": wrappers, "pages": pages})
}

// wrapper is the Dashboard's ApiDefinitionWrapper of a stored API: the classic definition the Dashboard keeps
// beside every API (a Tyk OAS API has is_oas set) and the OAS document.
func (f *Fake) wrapper(id string, doc []byte) map[string]any {
	var probe struct {
		Tyk struct {
			Info struct {
				DBID string `json:"dbId"`
				Name string `json:"name"`
			} `json:"info"`
		} `json:"x-tyk-api-gateway"`
	}
	_ = json.Unmarshal(doc, &probe)
	w := map[string]any{
		"api_definition": map[string]any{"api_id": id, "id": probe.Tyk.Info.DBID, "name": probe.Tyk.Info.Name,
			"org_id": f.Org, "is_oas": true, "active": true},
		"created_at": "2026-01-01T00:00:00Z",
	}
	if !f.OmitListedOAS {
		w["oas"] = json.RawMessage(doc)
	}
	return w
}

func (f *Fake) get(w http.ResponseWriter, id string) {
	f.mu.Lock()
	doc, ok := f.served()[id]
	f.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, f.errorBody("API not found"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
}

// stamp adds what Tyk adds to a stored API: the Dashboard its IDs and its own URL of the API in `servers`, the
// Gateway `servers` regenerated from the custom domain and the listen path, and an empty `components`.
func (f *Fake) stamp(doc map[string]any, dbID string) []byte {
	tyk, _ := doc["x-tyk-api-gateway"].(map[string]any)
	listen, domain := "/", ""
	if server, ok := tyk["server"].(map[string]any); ok {
		if lp, ok := server["listenPath"].(map[string]any); ok {
			if v, ok := lp["value"].(string); ok {
				listen = v
			}
		}
		if cd, ok := server["customDomain"].(map[string]any); ok && cd["enabled"] == true {
			domain, _ = cd["name"].(string)
		}
	}
	if f.Mode == target.ModePro {
		info, _ := tyk["info"].(map[string]any)
		info["dbId"] = dbID
		info["orgId"] = f.Org
		servers, _ := doc["servers"].([]any)
		doc["servers"] = append([]any{map[string]any{"url": "http://tyk-gateway.local" + listen}}, servers...)
	} else {
		host := "tyk-gateway.local"
		if domain != "" {
			host = (&url.URL{Path: domain}).EscapedPath()
		}
		doc["servers"] = []any{map[string]any{"url": "http://" + host + listen}}
		if _, ok := doc["components"]; !ok {
			doc["components"] = map[string]any{}
		}
	}
	out, _ := json.MarshalIndent(doc, "", "  ")
	return out
}

func decode(body []byte) (map[string]any, string, bool) {
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil || doc == nil {
		return nil, "", false
	}
	tyk, _ := doc["x-tyk-api-gateway"].(map[string]any)
	info, _ := tyk["info"].(map[string]any)
	id, _ := info["id"].(string)
	if info == nil {
		return nil, "", false
	}
	return doc, id, true
}

func (f *Fake) create(w http.ResponseWriter, body []byte) {
	doc, id, ok := decode(body)
	if !ok {
		writeJSON(w, http.StatusBadRequest, f.errorBody("request malformed"))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if id == "" {
		id = fmt.Sprintf("generated-%d", len(f.stored)+1)
		doc["x-tyk-api-gateway"].(map[string]any)["info"].(map[string]any)["id"] = id
	}
	if f.Mode == target.ModeCE {
		// The Gateway writes the API's file, whether or not it has one: a create of an ID it has overwrites.
		f.stored[id] = f.stamp(doc, "")
		writeJSON(w, http.StatusOK, map[string]any{"key": id, "status": "ok", "action": "added"})
		return
	}
	if _, exists := f.stored[id]; exists || f.classic[id] != "" {
		writeJSON(w, http.StatusConflict, f.errorBody("API with this ID already exists"))
		return
	}
	f.nextDBID++
	dbID := fmt.Sprintf("%024x", f.nextDBID)
	f.stored[id] = f.stamp(doc, dbID)
	writeJSON(w, http.StatusOK, f.okBody("API created", map[string]any{"Meta": dbID, "ID": id}))
}

func (f *Fake) update(w http.ResponseWriter, id string, body []byte) {
	doc, docID, ok := decode(body)
	if !ok || (docID != "" && docID != id) {
		writeJSON(w, http.StatusBadRequest, f.errorBody("request APIID does not match that in Definition! For Updtae operations these must match."))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	old, exists := f.served()[id]
	if !exists {
		writeJSON(w, http.StatusNotFound, f.errorBody("API not found"))
		return
	}
	var prev struct {
		Tyk struct {
			Info struct {
				DBID string `json:"dbId"`
			} `json:"info"`
		} `json:"x-tyk-api-gateway"`
	}
	_ = json.Unmarshal(old, &prev)
	f.stored[id] = f.stamp(doc, prev.Tyk.Info.DBID)
	if f.Mode == target.ModePro {
		writeJSON(w, http.StatusOK, f.okBody("Api updated", nil))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"key": id, "status": "ok", "action": "modified"})
}

func (f *Fake) delete(w http.ResponseWriter, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, exists := f.served()[id]; !exists {
		writeJSON(w, http.StatusNotFound, f.errorBody("API not found"))
		return
	}
	if _, stored := f.stored[id]; !stored {
		writeJSON(w, http.StatusInternalServerError, f.errorBody("Delete failed"))
		return
	}
	delete(f.stored, id)
	if f.Mode == target.ModePro {
		writeJSON(w, http.StatusOK, f.okBody("API deleted", nil))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"key": id, "status": "ok", "action": "deleted"})
}

func (f *Fake) addCert(w http.ResponseWriter, r *http.Request, body []byte) {
	data, org := body, r.URL.Query().Get("org_id")
	if f.Mode == target.ModePro {
		org = f.Org
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		file, _, err := r.FormFile("file")
		if err != nil {
			writeJSON(w, http.StatusBadRequest, f.errorBody("no file in the form"))
			return
		}
		data, _ = io.ReadAll(file)
	}
	id, ok := CertificateID(org, data)
	if !ok {
		writeJSON(w, http.StatusBadRequest, f.errorBody("Failed to decode certificate"))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, exists := f.certs[id]; exists {
		writeJSON(w, http.StatusForbidden, f.errorBody("Certificate with "+id+" id already exists"))
		return
	}
	f.certs[id] = data
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "status": "ok", "message": "Certificate added"})
}

// getCert answers a certificate's metadata (CertsCertificateMeta), or 404.
func (f *Fake) getCert(w http.ResponseWriter, id string) {
	f.mu.Lock()
	data, ok := f.certs[id]
	f.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, f.errorBody("Certificate with given SHA256 fingerprint not found"))
		return
	}
	meta := map[string]any{"id": id, "has_private": strings.Contains(string(data), "PRIVATE KEY")}
	if block, _ := pem.Decode(data); block != nil {
		sum := sha256.Sum256(block.Bytes)
		meta["fingerprint"] = hex.EncodeToString(sum[:])
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			meta["dns_names"] = c.DNSNames
			meta["not_before"] = c.NotBefore.UTC().Format(time.RFC3339)
			meta["not_after"] = c.NotAfter.UTC().Format(time.RFC3339)
		}
	}
	writeJSON(w, http.StatusOK, meta)
}

// CertificateID is Tyk's ID of the first certificate of a PEM bundle.
func CertificateID(org string, bundle []byte) (string, bool) {
	for rest := bundle; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return "", false
		}
		if block.Type == "CERTIFICATE" {
			sum := sha256.Sum256(block.Bytes)
			return org + hex.EncodeToString(sum[:]), true
		}
	}
}

// NewCA makes a self-signed ECDSA CA certificate and returns its PEM (a ConfigMap's ca.crt holds such).
func NewCA(t testing.TB, name string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Unix(0, 0), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// NewCertificate makes a self-signed ECDSA certificate for a host and returns its PEM and its key's PEM.
func NewCertificate(t testing.TB, host string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host},
		NotBefore:    time.Unix(0, 0),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}
