package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The ownership marker (see the package documentation).
const (
	// MarkerKey is the top-level OpenAPI extension that holds the marker.
	MarkerKey = "x-gateway2tyk"
	// ManagedBy is the value of the marker's managedBy field.
	ManagedBy = "gateway2tyk"
	// IDPrefix starts the ID of every API the render makes.
	IDPrefix = "gwapi-"
)

// Marker is what the sync writes into every API it sends, and what it reads back to know an API is its own.
type Marker struct {
	ManagedBy string `json:"managedBy"`
	// Owner is the application that owns the API (the render's label gateway2tyk.io/owner); "" in the marker of
	// an API that a release before owners made.
	Owner    string `json:"owner,omitempty"`
	Route    string `json:"route"`
	Gateway  string `json:"gateway"`
	Hostname string `json:"hostname"`
	Path     string `json:"path"`
}

// Namespace is the namespace of the marker's route, which scopes ownership.
func (m Marker) Namespace() string {
	ns, _, _ := strings.Cut(m.Route, "/")
	return ns
}

// Desired is one rendered API.
type Desired struct {
	ID       string
	Marker   Marker
	Document []byte // the Tyk OAS document as rendered (JSON)
}

// Actual is one API as the target returned it.
type Actual struct {
	ID       string
	Document []byte
}

// Action is what the sync does with one API.
type Action string

// The actions, as printed in the table.
const (
	Create    Action = "create"
	Update    Action = "update"
	Delete    Action = "delete"
	Unchanged Action = "unchanged"
	// Conflict is a rendered API whose ID the target gives to an API of another owner: never written.
	Conflict Action = "conflict"
)

// Item is one API's action.
type Item struct {
	Action Action
	ID     string
	Route  string
	// Owner is the owner of the API: the rendered one's, or for a delete the target's.
	Owner string
	// Where is the API's hostname and path (the marker's), which tell apart the APIs of one route.
	Where string
	// Body is the document to send (with the marker) for create and update.
	Body []byte
	// Blocked, when set, says why the action must not be carried out; a blocked action counts as failed.
	Blocked string
	// Adopts is set on the update of an API made before owners (its marker has none), which the sync makes its
	// owner's.
	Adopts bool
}

// Other is an API of the target that the plan leaves alone because another owner has it, or none does (made
// before owners, and not rendered by this input's owners).
type Other struct {
	ID, Route, Where string
	Owner            string // "" for an API made before owners
}

// Scope limits a sync to the APIs of routes in some namespaces, and to one owner; the zero Scope is every
// namespace and the owners of the input.
type Scope struct {
	Namespaces []string
	// Owner, when set, is the one owner whose APIs the sync reads, creates, updates and deletes (even when the
	// input holds none of them: then it deletes them all, which the guard refuses unless it is meant).
	Owner string
}

// Contains reports whether a namespace is in the scope.
func (s Scope) Contains(ns string) bool {
	if len(s.Namespaces) == 0 {
		return true
	}
	for _, n := range s.Namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// Input is what a plan is made from.
type Input struct {
	Desired []Desired
	// Actual must be the complete listing of the target: a plan is never made from a failed or partial one.
	Actual []Actual
	Scope  Scope
	// WithholdDeletes, when set, blocks every delete with this reason (for example when a rendered ConfigMap could
	// not be read, so the desired set may be incomplete).
	WithholdDeletes string
}

// Plan is the list of actions, sorted by route and API ID.
type Plan struct {
	Items []Item
	// Owners are the owners the plan acts for, sorted: those of the input's APIs, and Scope.Owner.
	Owners []string
	// Had counts, per owner of Owners, the APIs it had on the target in the scope before the plan.
	Had map[string]int
	// Others are the target's APIs in the scope left alone because they are not the Owners', sorted like Items.
	Others []Other
}

// DeletesAll returns the owners whose every API on the target (in the scope) the plan deletes: what an empty
// or wrong input asks for far more often than what is meant, even when the plan creates others for it.
func (p *Plan) DeletesAll() []string {
	deletes := map[string]int{}
	for _, it := range p.Items {
		if it.Action == Delete {
			deletes[it.Owner]++
		}
	}
	var out []string
	for _, o := range p.Owners {
		if p.Had[o] > 0 && deletes[o] == p.Had[o] {
			out = append(out, o)
		}
	}
	return out
}

// Count returns how many items have the action.
func (p *Plan) Count(a Action) int {
	n := 0
	for _, it := range p.Items {
		if it.Action == a {
			n++
		}
	}
	return n
}

// Make compares the desired APIs with the target's and returns the plan. It fails only when a rendered document
// is not a JSON object.
//
// Ownership (see the package documentation): the plan acts for the owners of the input's APIs (and Scope.Owner).
// It creates, updates and deletes only their APIs. A rendered API whose ID the target gives to another owner's API
// is a conflict, never written; one whose marker has no owner (made before owners) is adopted: updated with its
// owner in the marker. An API of the target that none of the plan's owners renders is deleted only when one of
// them owns it; those of other owners, and those without an owner, are left alone (Others).
func Make(in Input) (*Plan, error) {
	actual := make(map[string]Actual, len(in.Actual))
	for _, a := range in.Actual {
		actual[a.ID] = a
	}
	owners := map[string]bool{}
	if in.Scope.Owner != "" {
		owners[in.Scope.Owner] = true
	}
	for _, d := range in.Desired {
		owners[d.Marker.Owner] = true
	}
	desired := make(map[string]bool, len(in.Desired))
	p := &Plan{Had: map[string]int{}}
	for o := range owners {
		p.Owners = append(p.Owners, o)
	}
	sort.Strings(p.Owners)
	for _, d := range in.Desired {
		desired[d.ID] = true
		body, err := Stamp(d.Document, d.Marker)
		if err != nil {
			return nil, fmt.Errorf("API %s (route %s): %w", d.ID, d.Marker.Route, err)
		}
		it := Item{ID: d.ID, Route: d.Marker.Route, Owner: d.Marker.Owner, Where: d.Marker.Hostname + d.Marker.Path, Body: body}
		a, exists := actual[d.ID]
		m, _ := ReadMarker(a.Document)
		switch {
		case !exists:
			it.Action = Create
		case !Owned(a.Document):
			it.Action = Update
			it.Blocked = "an API with this ID exists on the target without the " + MarkerKey +
				" marker (gateway2tyk did not create it): not overwritten"
		case m.Owner != "" && m.Owner != d.Marker.Owner:
			it.Action = Conflict
			it.Blocked = fmt.Sprintf("the target's API with this ID is owner %s's (route %s): not overwritten; "+
				"two applications render the same route, or it moves between them (docs/sync.md: moving an API "+
				"between owners)", m.Owner, m.Route)
		case Equal(body, a.Document):
			it.Action = Unchanged
		default:
			it.Action = Update
			it.Adopts = m.Owner == ""
		}
		p.Items = append(p.Items, it)
	}
	for _, a := range in.Actual {
		m, ok := ReadMarker(a.Document)
		if !ok || !strings.HasPrefix(a.ID, IDPrefix) || !in.Scope.Contains(m.Namespace()) {
			continue // foreign, or another scope's: never touched
		}
		if owners[m.Owner] {
			p.Had[m.Owner]++
		}
		if desired[a.ID] {
			continue
		}
		if !owners[m.Owner] || m.Owner == "" {
			p.Others = append(p.Others, Other{ID: a.ID, Route: m.Route, Where: m.Hostname + m.Path, Owner: m.Owner})
			continue
		}
		p.Items = append(p.Items, Item{Action: Delete, ID: a.ID, Route: m.Route, Owner: m.Owner,
			Where: m.Hostname + m.Path, Blocked: in.WithholdDeletes})
	}
	sort.SliceStable(p.Items, func(i, j int) bool {
		if p.Items[i].Route != p.Items[j].Route {
			return p.Items[i].Route < p.Items[j].Route
		}
		return p.Items[i].ID < p.Items[j].ID
	})
	sort.Slice(p.Others, func(i, j int) bool {
		if p.Others[i].Route != p.Others[j].Route {
			return p.Others[i].Route < p.Others[j].Route
		}
		return p.Others[i].ID < p.Others[j].ID
	})
	return p, nil
}

// Stamp returns the document with the marker set, encoded canonically (sorted keys, compact).
func Stamp(doc []byte, m Marker) ([]byte, error) {
	obj, err := decodeObject(doc)
	if err != nil {
		return nil, err
	}
	m.ManagedBy = ManagedBy
	marker := map[string]any{
		"managedBy": m.ManagedBy, "route": m.Route, "gateway": m.Gateway, "hostname": m.Hostname, "path": m.Path,
	}
	if m.Owner != "" {
		marker["owner"] = m.Owner
	}
	obj[MarkerKey] = marker
	return encode(obj)
}

// ReadMarker returns the marker of a document, and whether it has one that says gateway2tyk manages it.
func ReadMarker(doc []byte) (Marker, bool) {
	var probe struct {
		Marker *Marker `json:"x-gateway2tyk"`
	}
	if err := json.Unmarshal(doc, &probe); err != nil || probe.Marker == nil || probe.Marker.ManagedBy != ManagedBy {
		return Marker{}, false
	}
	return *probe.Marker, true
}

// Owned reports whether gateway2tyk created the API of a document: it has the marker and a gwapi- ID.
func Owned(doc []byte) bool {
	if _, ok := ReadMarker(doc); !ok {
		return false
	}
	return strings.HasPrefix(DocumentID(doc), IDPrefix)
}

// DocumentID returns x-tyk-api-gateway.info.id of a document, or "".
func DocumentID(doc []byte) string {
	var probe struct {
		Tyk struct {
			Info struct {
				ID string `json:"id"`
			} `json:"info"`
		} `json:"x-tyk-api-gateway"`
	}
	if json.Unmarshal(doc, &probe) != nil {
		return ""
	}
	return probe.Tyk.Info.ID
}

// CertificateIDs returns the certificate IDs a document names: its server.customDomain.certificates, then the
// CA certificates of its server.clientCertificates.allowlist.
func CertificateIDs(doc []byte) []string {
	var probe struct {
		Tyk struct {
			Server struct {
				CustomDomain struct {
					Certificates []string `json:"certificates"`
				} `json:"customDomain"`
				ClientCertificates struct {
					Allowlist []string `json:"allowlist"`
				} `json:"clientCertificates"`
			} `json:"server"`
		} `json:"x-tyk-api-gateway"`
	}
	if json.Unmarshal(doc, &probe) != nil {
		return nil
	}
	return append(probe.Tyk.Server.CustomDomain.Certificates, probe.Tyk.Server.ClientCertificates.Allowlist...)
}

// Equal reports whether a document to send and one the target returned are the same after normalising both.
func Equal(desired, actual []byte) bool {
	d, a, err := Normalised(desired, actual)
	return err == nil && bytes.Equal(d, a)
}

// Normalised returns both documents in the canonical form Equal compares (the desired one's normalisation
// decides what of the actual one is left out), for a report of what differs.
func Normalised(desired, actual []byte) (d, a []byte, err error) {
	dobj, err := decodeObject(desired)
	if err != nil {
		return nil, nil, err
	}
	aobj, err := decodeObject(actual)
	if err != nil {
		return nil, nil, err
	}
	if d, err = encode(normalise(dobj, dobj)); err != nil {
		return nil, nil, err
	}
	a, err = encode(normalise(aobj, dobj))
	return d, a, err
}

// normalise returns the canonical form of a document as the comparison with the desired one sees it (see the
// package documentation).
func normalise(obj, desired map[string]any) map[string]any {
	out, _ := dropNulls(obj).(map[string]any)
	if tyk, ok := out["x-tyk-api-gateway"].(map[string]any); ok {
		if info, ok := tyk["info"].(map[string]any); ok {
			delete(info, "dbId")
			delete(info, "orgId")
		}
	}
	if servers, ok := out["servers"].([]any); ok {
		want := map[string]bool{}
		if ds, ok := desired["servers"].([]any); ok {
			for _, s := range ds {
				if b, err := encode(s); err == nil {
					want[string(b)] = true
				}
			}
		}
		var kept []any
		for _, s := range servers {
			if b, err := encode(s); err == nil && want[string(b)] {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			delete(out, "servers")
		} else {
			out["servers"] = kept
		}
	}
	asTykLists(out, desired)
	// The open-source Gateway adds an empty components object to every API it stores.
	if c, ok := out["components"].(map[string]any); ok && len(c) == 0 {
		if _, asked := desired["components"]; !asked {
			delete(out, "components")
		}
	}
	return out
}

// dropNulls returns a copy of v without null values in objects.
func dropNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if x != nil {
				out[k] = dropNulls(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = dropNulls(x)
		}
		return out
	}
	return v
}

func decodeObject(doc []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("the Tyk OAS document is not a JSON object: %w", err)
	}
	if obj == nil {
		return nil, fmt.Errorf("the Tyk OAS document is not a JSON object")
	}
	return obj, nil
}

// encode writes JSON with sorted keys (encoding/json sorts map keys), compact, without HTML escaping.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// asTykLists leaves out of both sides what a Tyk Gateway lists differently from what it was sent in ways the
// render cannot write (seen on the 5.4 line and v5.14.0; tykroute.Normalisations), so that an API is unchanged
// when Tyk keeps it as sent:
//   - server.authentication.securitySchemes.authToken.header is not listed (the header stays in the
//     document's components.securitySchemes, which is compared);
//   - middleware.global.trafficLogs.tagHeaders are listed in lower case (header names are case-insensitive);
//   - an operation under a path with a regular-expression parameter that ignores authentication is listed a
//     second time, under another path (/{rest}, or /{customRegex1} on the 5.4 line) with operations named
//     "{rest:.*}GET" and so on: a path the desired document does not have, whose every operation's
//     operationId ends in an upper-case HTTP method and has no middleware in the desired document, is left out
//     with its middleware;
//   - the rules of an urlRewrite trigger are listed in no fixed order (Tyk keeps each kind of them in a map, seen
//     on the 5.4 line): both sides are compared with them sorted (by in, name and pattern).
func asTykLists(doc, desired map[string]any) {
	tyk, _ := doc["x-tyk-api-gateway"].(map[string]any)
	sortTriggerRules(tyk)
	if auth, ok := dig(tyk, "server", "authentication", "securitySchemes", "authToken").(map[string]any); ok {
		delete(auth, "header")
	}
	if logs, ok := dig(tyk, "middleware", "global", "trafficLogs").(map[string]any); ok {
		if tags, ok := logs["tagHeaders"].([]any); ok {
			lower := make([]any, len(tags))
			for i, t := range tags {
				if s, ok := t.(string); ok {
					lower[i] = strings.ToLower(s)
				} else {
					lower[i] = t
				}
			}
			logs["tagHeaders"] = lower
		}
	}
	paths, _ := doc["paths"].(map[string]any)
	wantPaths, _ := desired["paths"].(map[string]any)
	ops, _ := dig(tyk, "middleware", "operations").(map[string]any)
	wantOps, _ := dig(desired["x-tyk-api-gateway"], "middleware", "operations").(map[string]any)
	for key, item := range paths {
		if _, asked := wantPaths[key]; asked {
			continue
		}
		ids, ok := listedCopy(item, wantOps)
		if !ok {
			continue
		}
		delete(paths, key)
		for _, id := range ids {
			delete(ops, id)
		}
	}
}

// listedCopy returns the operationIds of a path item when it is such a copy (see asTykLists).
func listedCopy(item any, wantOps map[string]any) ([]string, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, false
	}
	var ids []string
	for k, v := range m {
		if k == "parameters" {
			continue
		}
		op, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		id, _ := op["operationId"].(string)
		if _, asked := wantOps[id]; asked || !strings.HasSuffix(id, strings.ToUpper(k)) || len(id) == len(k) {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, len(ids) > 0
}

// dig returns the value at a path of object keys, or nil.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// sortTriggerRules sorts the rules of every operation's urlRewrite triggers (see asTykLists).
func sortTriggerRules(tyk map[string]any) {
	ops, _ := dig(tyk, "middleware", "operations").(map[string]any)
	for _, op := range ops {
		triggers, _ := dig(op, "urlRewrite", "triggers").([]any)
		for _, tr := range triggers {
			rules, _ := dig(tr, "rules").([]any)
			key := func(r any) string {
				m, _ := r.(map[string]any)
				return fmt.Sprint(m["in"], "\x00", m["name"], "\x00", m["pattern"])
			}
			sort.SliceStable(rules, func(i, j int) bool { return key(rules[i]) < key(rules[j]) })
		}
	}
}
