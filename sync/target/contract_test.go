package target_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/sync/target"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
	"github.com/gateway2tyk/gateway2tyk/third_party/tyk"
)

// description loads Tyk's published API description of a target (the repository's copy, third_party/tyk) with
// kin-openapi's loader.
func description(t *testing.T, mode target.Mode) (*openapi3.T, string) {
	t.Helper()
	name := map[target.Mode]string{target.ModePro: tyk.DashboardAPI, target.ModeCE: tyk.GatewayAPI}[mode]
	doc, err := openapi3.NewLoader().LoadFromData(tyk.Read(name))
	require.NoError(t, err, "loading %s", name)
	return doc, name
}

// published returns the description's own key of a path template and its operation for the method; the key
// is "" when the description lacks the operation. Template variables match whatever their names.
func published(doc *openapi3.T, op target.Operation) (string, *openapi3.Operation) {
	item := doc.Paths.Find(op.Path)
	if item == nil || item.GetOperation(op.Method) == nil {
		return "", nil
	}
	for key, it := range doc.Paths.Map() {
		if it == item {
			return key, item.GetOperation(op.Method)
		}
	}
	return "", nil
}

// TestClientsUseOnlyPublishedOperations checks each client against Tyk's published description of its target:
// every operation the client declares exists there; a scenario that makes the client call each of them runs
// against the fake; every request the fake received is one of the declared operations (found by a router over
// those operations alone, so an undeclared call cannot pass) with parameters the description accepts; and
// every answer of the fake is valid against the description's response for that status.
func TestClientsUseOnlyPublishedOperations(t *testing.T) {
	for _, mode := range []target.Mode{target.ModePro, target.ModeCE} {
		t.Run(string(mode), func(t *testing.T) {
			doc, name := description(t, mode)
			f := map[target.Mode]func(testing.TB) *targettest.Fake{
				target.ModePro: targettest.NewDashboard, target.ModeCE: targettest.NewGateway}[mode](t)

			// Only the declared operations, as the description has them.
			declared := &openapi3.T{OpenAPI: doc.OpenAPI, Info: doc.Info, Components: doc.Components,
				Paths: openapi3.NewPaths(), Servers: openapi3.Servers{{URL: f.Server.URL}}}
			var ops []string
			for _, op := range target.Operations(mode) {
				ops = append(ops, op.String())
				key, o := published(doc, op)
				if o == nil {
					t.Errorf("the client calls %s, which %s does not have", op, name)
					continue
				}
				item := declared.Paths.Value(key)
				if item == nil {
					item = &openapi3.PathItem{Parameters: doc.Paths.Value(key).Parameters}
					declared.Paths.Set(key, item)
				}
				item.SetOperation(op.Method, o)
			}
			t.Logf("operations the %s client calls, checked against %s:\n  %s", mode, name, strings.Join(ops, "\n  "))
			// Tyk's files have examples that do not match their own schemas (for example a date parameter's):
			// examples are documentation, not the contract, so they are not validated.
			router, err := legacy.NewRouter(declared, openapi3.DisableExamplesValidation())
			require.NoError(t, err)

			exercise(t, f)

			used := map[string]bool{}
			calls := f.Calls()
			require.NotEmpty(t, calls)
			for _, c := range calls {
				req := httptest.NewRequest(c.Method, f.Server.URL+c.Path, bytes.NewReader(c.RequestBody))
				req.Header = c.RequestHeader
				route, params, err := router.FindRoute(req)
				if err != nil {
					t.Errorf("%s %s: not one of the client's declared operations (%v)", c.Method, c.Path, err)
					continue
				}
				used[route.Method+" "+route.Path] = true
				in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
					Options: &openapi3filter.Options{ExcludeRequestBody: true, MultiError: true,
						AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
				assert.NoError(t, openapi3filter.ValidateRequest(context.Background(), in),
					"%s %s: the request does not follow %s", c.Method, c.Path, name)
				err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
					RequestValidationInput: in, Status: c.Status, Header: c.ResponseHeader,
					Body:    io.NopCloser(bytes.NewReader(c.ResponseBody)),
					Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
				})
				assert.NoError(t, err, "%s %s: the fake's answer %d %s is not as %s documents it",
					c.Method, c.Path, c.Status, c.ResponseBody, name)
			}
			var unused []string
			for _, op := range target.Operations(mode) {
				if key, o := published(doc, op); o != nil && !used[op.Method+" "+key] {
					unused = append(unused, op.String())
				}
			}
			sort.Strings(unused)
			assert.Empty(t, unused, "declared operations the scenario never called: the list or the scenario is stale")
		})
	}
}

// exercise makes the client call every operation it has, with answers of each kind the sync relies on: a
// listing of more than one Dashboard page, a listing without documents (read one by one), creates, an update, a
// delete and a delete of an API that is gone, a certificate upload, its repetition (refused: it exists) and
// checks of a certificate that exists and of one that does not.
func exercise(t *testing.T, f *targettest.Fake) {
	t.Helper()
	ctx := context.Background()
	tg, err := target.New(f.Settings(), target.Options{})
	require.NoError(t, err)
	_, err = tg.Version(ctx)
	require.NoError(t, err)
	var apis []targettest.API
	for i := range 12 { // more than the Dashboard's page size (10)
		apis = append(apis, targettest.API{Route: "shop/r", Gateway: "shop/edge", Hostname: "shop.example.com",
			Path: fmt.Sprintf("/p%d", i), Upstream: "http://u.shop.svc.cluster.local"})
	}
	for _, a := range apis {
		require.NoError(t, tg.Create(ctx, a.ID(), []byte(a.Document())))
	}
	if f.Mode == target.ModePro {
		f.PutClassic("classic-1", "a classic API") // listed with is_oas false and no document
	}
	require.NoError(t, tg.Reload(ctx))
	listed, err := tg.List(ctx)
	require.NoError(t, err)
	assert.Len(t, listed, len(apis)+len(f.Classic()))
	f.OmitListedOAS = true
	listed, err = tg.List(ctx)
	require.NoError(t, err)
	require.Len(t, listed, len(apis)+len(f.Classic()))
	for _, a := range listed {
		if a.ID == "classic-1" {
			assert.Nil(t, a.Document, "a classic API has no OAS document")
			continue
		}
		assert.Contains(t, string(a.Document), `"x-tyk-api-gateway"`, "the document of %s was fetched", a.ID)
	}
	apis[0].Upstream = "http://v2.shop.svc.cluster.local"
	require.NoError(t, tg.Update(ctx, apis[0].ID(), []byte(apis[0].Document())))
	require.NoError(t, tg.Delete(ctx, apis[1].ID()))
	require.NoError(t, tg.Reload(ctx))
	require.NoError(t, tg.Delete(ctx, apis[1].ID()), "a delete of what is gone has succeeded")
	if f.Mode == target.ModeCE {
		s := f.Settings()
		s.NodeReload = true
		node, err := target.New(s, target.Options{})
		require.NoError(t, err)
		require.NoError(t, node.Reload(ctx))
	}
	cert, key := targettest.NewCertificate(t, "shop.example.com")
	id, existed, err := tg.UploadCertificate(ctx, append(cert, key...), f.Org)
	require.NoError(t, err)
	assert.False(t, existed)
	assert.Equal(t, targettest.CertID(f.Org, cert), id)
	_, existed, err = tg.UploadCertificate(ctx, append(cert, key...), f.Org)
	require.NoError(t, err)
	assert.True(t, existed)
	ok, err := tg.CertificateExists(ctx, id, f.Org)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = tg.CertificateExists(ctx, f.Org+"00", f.Org)
	require.NoError(t, err)
	assert.False(t, ok)
}
