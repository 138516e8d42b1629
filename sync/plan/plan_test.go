package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const doc = `{"info":{"title":"gwapi-1","version":"1.0.0"},"openapi":"3.0.3","paths":{},` +
	`"x-tyk-api-gateway":{"info":{"id":"gwapi-1","name":"gwapi-1","state":{"active":true}},` +
	`"server":{"listenPath":{"strip":true,"value":"/a"}},"upstream":{"url":"http://a:8080/a","weight":1.50}}}`

var marker = Marker{Route: "shop/a", Gateway: "shop/edge", Hostname: "", Path: "/a"}

func TestStampIsCanonicalAndCarriesTheMarker(t *testing.T) {
	body, err := Stamp([]byte(doc), marker)
	require.NoError(t, err)
	assert.Contains(t, string(body), `"x-gateway2tyk":{"gateway":"shop/edge","hostname":"","managedBy":"gateway2tyk","path":"/a","route":"shop/a"}`)
	assert.Contains(t, string(body), `"weight":1.50`, "numbers are kept as written")
	m, ok := ReadMarker(body)
	require.True(t, ok)
	assert.Equal(t, "shop", m.Namespace())
	assert.True(t, Owned(body))
	assert.False(t, Owned([]byte(doc)), "no marker")
	_, err = Stamp([]byte(`[1]`), marker)
	assert.Error(t, err)
}

func TestOwnedNeedsMarkerAndPrefix(t *testing.T) {
	body, _ := Stamp([]byte(doc), marker)
	assert.True(t, Owned(body))
	foreignID, _ := Stamp([]byte(`{"x-tyk-api-gateway":{"info":{"id":"petstore"}}}`), marker)
	assert.False(t, Owned(foreignID), "a marker on an API whose ID the render cannot make")
	other := []byte(`{"x-gateway2tyk":{"managedBy":"tyk-operator"},"x-tyk-api-gateway":{"info":{"id":"gwapi-1"}}}`)
	assert.False(t, Owned(other))
}

func TestEqualNormalises(t *testing.T) {
	body, _ := Stamp([]byte(doc), marker)
	// What a Dashboard returns: keys reordered, indented, dbId/orgId and its own server URL added, a null.
	returned := `{
	  "openapi": "3.0.3", "info": {"version": "1.0.0", "title": "gwapi-1", "description": null},
	  "servers": [{"url": "http://tyk-gateway.local/a"}],
	  "paths": {},
	  "x-gateway2tyk": {"route": "shop/a", "managedBy": "gateway2tyk", "gateway": "shop/edge", "hostname": "", "path": "/a"},
	  "x-tyk-api-gateway": {"info": {"dbId": "65f0", "orgId": "5e9d", "id": "gwapi-1", "name": "gwapi-1", "state": {"active": true}},
	    "server": {"listenPath": {"value": "/a", "strip": true}}, "upstream": {"url": "http://a:8080/a", "weight": 1.50}}}`
	assert.True(t, Equal(body, []byte(returned)))

	for _, c := range []struct{ name, old, new string }{
		{"upstream", `"url": "http://a:8080/a"`, `"url": "http://b:8080/a"`},
		{"number as written", `"weight": 1.50`, `"weight": 1.5`},
		{"marker", `"route": "shop/a"`, `"route": "shop/b"`},
		{"state", `"active": true`, `"active": false`},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.False(t, Equal(body, []byte(replace(returned, c.old, c.new))))
		})
	}
	// A server the desired document has is compared, not dropped.
	withServer, _ := Stamp([]byte(replace(doc, `"paths":{}`, `"paths":{},"servers":[{"url":"https://api.example.com"}]`)), marker)
	assert.False(t, Equal(withServer, []byte(returned)))
	assert.True(t, Equal(withServer, []byte(replace(returned, `"servers": [{"url": "http://tyk-gateway.local/a"}]`,
		`"servers": [{"url": "http://tyk-gateway.local/a"}, {"url": "https://api.example.com"}]`))))
	assert.False(t, Equal(body, []byte("not json")))

	// What the open-source Gateway (5.4 line) returned for a stored API: servers regenerated from the custom
	// domain and listen path, and an empty components object. A components object that is not empty, or one the
	// desired document has, counts.
	gateway := replace(returned, `"paths": {},`, `"paths": {}, "components": {},`)
	assert.True(t, Equal(body, []byte(gateway)))
	assert.False(t, Equal(body, []byte(replace(returned, `"paths": {},`, `"paths": {}, "components": {"schemas": {}},`))))
	withComponents, _ := Stamp([]byte(replace(doc, `"paths":{}`, `"paths":{},"components":{"schemas":{}}`)), marker)
	assert.False(t, Equal(withComponents, []byte(gateway)))
}

func replace(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	panic("not found: " + old)
}

func TestMake(t *testing.T) {
	mk := func(id, route, upstream string) Desired {
		return Desired{ID: id, Marker: Marker{Route: route, Owner: "app"}, Document: []byte(
			`{"x-tyk-api-gateway":{"info":{"id":"` + id + `"},"upstream":{"url":"` + upstream + `"}}}`)}
	}
	stamped := func(d Desired) Actual {
		b, err := Stamp(d.Document, d.Marker)
		require.NoError(t, err)
		return Actual{ID: d.ID, Document: b}
	}
	same := mk("gwapi-same", "b/r", "u")
	changed := mk("gwapi-changed", "b/r", "u2")
	created := mk("gwapi-new", "a/r", "u")
	gone := mk("gwapi-gone", "b/old", "u")
	otherNS := mk("gwapi-otherns", "c/old", "u")
	foreign := Actual{ID: "gwapi-foreign", Document: []byte(`{"x-tyk-api-gateway":{"info":{"id":"gwapi-foreign"}}}`)}
	collide := mk("gwapi-collide", "b/r", "u")

	p, err := Make(Input{
		Desired: []Desired{same, changed, created, collide},
		Actual: []Actual{stamped(same), stamped(mk("gwapi-changed", "b/r", "u1")), stamped(gone), stamped(otherNS), foreign,
			{ID: "gwapi-collide", Document: []byte(`{"x-tyk-api-gateway":{"info":{"id":"gwapi-collide"}}}`)}},
		Scope: Scope{Namespaces: []string{"a", "b"}},
	})
	require.NoError(t, err)
	var got []string
	for _, it := range p.Items {
		s := string(it.Action) + " " + it.ID + " " + it.Route
		if it.Blocked != "" {
			s += " blocked"
		}
		got = append(got, s)
	}
	assert.Equal(t, []string{
		"create gwapi-new a/r",
		"delete gwapi-gone b/old",
		"update gwapi-changed b/r",
		"update gwapi-collide b/r blocked",
		"unchanged gwapi-same b/r",
	}, got)
	assert.Equal(t, 1, p.Count(Delete))

	p, err = Make(Input{Actual: []Actual{stamped(gone)}, Scope: Scope{Owner: "app"}, WithholdDeletes: "withheld: because"})
	require.NoError(t, err)
	require.Len(t, p.Items, 1)
	assert.Equal(t, "withheld: because", p.Items[0].Blocked)
}

// TestMakeOwners: a plan acts for its input's owners only. Another owner's API is never updated or deleted, even
// when the input renders one of the same ID (a conflict); an API made before owners is adopted by the owner that
// renders it and deleted by nobody; an owner's API no longer rendered is deleted; the guard's counts are per owner.
func TestMakeOwners(t *testing.T) {
	doc := func(id, upstream string) []byte {
		return []byte(`{"x-tyk-api-gateway":{"info":{"id":"` + id + `"},"upstream":{"url":"` + upstream + `"}}}`)
	}
	mk := func(id, owner string) Desired {
		return Desired{ID: id, Marker: Marker{Route: "shop/" + id, Owner: owner}, Document: doc(id, "u")}
	}
	on := func(d Desired, upstream string) Actual {
		b, err := Stamp(doc(d.ID, upstream), d.Marker)
		require.NoError(t, err)
		return Actual{ID: d.ID, Document: b}
	}
	mine, minesGone := mk("gwapi-mine", "team-a"), mk("gwapi-mine-gone", "team-a")
	theirs, theirsRendered := mk("gwapi-theirs", "team-b"), mk("gwapi-both", "team-b")
	legacy, legacyGone := mk("gwapi-legacy", ""), mk("gwapi-legacy-gone", "")
	actual := []Actual{on(mine, "old"), on(minesGone, "u"), on(theirs, "u"), on(theirsRendered, "u"), on(legacy, "u"),
		on(legacyGone, "u")}
	p, err := Make(Input{
		Desired: []Desired{mine, mk("gwapi-both", "team-a"), mk("gwapi-legacy", "team-a")},
		Actual:  actual,
	})
	require.NoError(t, err)
	got := map[string]string{}
	for _, it := range p.Items {
		got[it.ID] = string(it.Action) + " " + it.Owner
		if it.Adopts {
			got[it.ID] += " adopts"
		}
		if it.Blocked != "" {
			got[it.ID] += " blocked"
		}
	}
	assert.Equal(t, map[string]string{
		"gwapi-mine":      "update team-a",
		"gwapi-mine-gone": "delete team-a",
		"gwapi-both":      "conflict team-a blocked",
		"gwapi-legacy":    "update team-a adopts",
	}, got)
	assert.Equal(t, []string{"team-a"}, p.Owners)
	assert.Equal(t, []Other{
		{ID: "gwapi-legacy-gone", Route: "shop/gwapi-legacy-gone"},
		{ID: "gwapi-theirs", Route: "shop/gwapi-theirs", Owner: "team-b"},
	}, p.Others)
	assert.Equal(t, map[string]int{"team-a": 2}, p.Had)
	assert.Empty(t, p.DeletesAll(), "team-a keeps one of its two APIs")
	var adopted Marker
	for _, it := range p.Items {
		if it.ID == "gwapi-legacy" {
			adopted, _ = ReadMarker(it.Body)
		}
	}
	assert.Equal(t, "team-a", adopted.Owner, "the adopting update writes the owner into the marker")

	// An input of team-b that renders neither of its APIs (but something else): it deletes both, and only
	// them, which is every API team-b has, so the guard names it even though the plan creates one.
	p, err = Make(Input{Desired: []Desired{mk("gwapi-new", "team-b")}, Actual: actual})
	require.NoError(t, err)
	var deleted []string
	for _, it := range p.Items {
		if it.Action == Delete {
			deleted = append(deleted, it.ID)
		}
	}
	assert.Equal(t, []string{"gwapi-both", "gwapi-theirs"}, deleted)
	assert.Equal(t, []string{"team-b"}, p.DeletesAll())

	// An empty input acts for nobody, unless the scope names the owner.
	p, err = Make(Input{Actual: actual})
	require.NoError(t, err)
	assert.Empty(t, p.Items)
	p, err = Make(Input{Actual: actual, Scope: Scope{Owner: "team-a"}})
	require.NoError(t, err)
	assert.Equal(t, 2, p.Count(Delete))
	assert.Equal(t, []string{"team-a"}, p.DeletesAll())
}

func TestCertificateIDs(t *testing.T) {
	assert.Equal(t, []string{"org1abc"}, CertificateIDs([]byte(`{"x-tyk-api-gateway":{"server":{"customDomain":{"certificates":["org1abc"]}}}}`)))
	assert.Nil(t, CertificateIDs([]byte(`{}`)))
}

// A Tyk Gateway lists the rules of an urlRewrite trigger in no fixed order (the 5.4 line did): the same rules in
// another order are equal, other rules are not.
func TestEqualTriggerRulesInAnyOrder(t *testing.T) {
	doc := func(rules string) []byte {
		return []byte(`{"openapi":"3.0.3","info":{"title":"r","version":"1"},"paths":{},"x-tyk-api-gateway":{"info":{"id":"r","name":"r","state":{"active":true}},` +
			`"middleware":{"operations":{"get":{"urlRewrite":{"enabled":true,"pattern":"^(.*)$","rewriteTo":"tyk://a/a$1",` +
			`"triggers":[{"condition":"all","rewriteTo":"tyk://b/b$1","rules":[` + rules + `]}]}}}},"server":{"listenPath":{"value":"/"}},"upstream":{"url":"http://x"}}}`)
	}
	beta := `{"in":"header","name":"X-Beta","pattern":"^1$"}`
	canary := `{"in":"header","name":"X-Canary","pattern":"^true$"}`
	assert.True(t, Equal(doc(beta+","+canary), doc(canary+","+beta)))
	assert.False(t, Equal(doc(beta+","+canary), doc(beta)))
	assert.False(t, Equal(doc(beta+","+canary), doc(beta+`,{"in":"header","name":"X-Canary","pattern":"^false$"}`)))
}
