package translate

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// This file owns one question: by which name a header transform writes a header, so whether a header can be
// added beside the value a message already has (Gateway API's add) rather than replace it (set).

// HeaderNames says how the Tyk Gateways write the names of a header transform (tyk.conf's
// ignore_canonical_mime_header_key, which the RenderConfig declares: config's HeaderNamesKept).
type HeaderNames int

const (
	// HeaderNamesAsGiven is the reference: names are written as the route gives them, and an add is rejected.
	HeaderNamesAsGiven HeaderNames = iota
	// HeaderNamesCanonicalized is the gateway-api profile on Tyk's default: Tyk writes every name in canonical
	// form (http.Header.Set), so a transform replaces the header whatever the case of its name. A request add is
	// served by internal APIs (appends.go); a response add is rejected, naming the setting that serves it.
	HeaderNamesCanonicalized
	// HeaderNamesKept is the gateway-api profile on Tyk Gateways that keep names as written: a set is written
	// by the canonical name, which replaces the canonical header a message has (Go's HTTP reader and Tyk's
	// proxy write every received name canonical), and a response add by the name in another case
	// (appendName), a header line of its own after any value the response has. A real v5.14.0 showed both
	// (docs/tyk-releases.md).
	HeaderNamesKept
)

// setByCanonicalName writes every set of t by its canonical name where the Gateways keep names as written, so
// that it replaces the header however the route spells it; otherwise t is written as given.
func (n HeaderNames) setByCanonicalName(t *tykoas.TransformHeaders) *tykoas.TransformHeaders {
	if t == nil || n != HeaderNamesKept {
		return t
	}
	for i := range t.Add {
		t.Add[i].Name = http.CanonicalHeaderKey(t.Add[i].Name)
	}
	sortAsTyk(t.Add)
	return t
}

// sortAsTyk sorts a transform's headers as Tyk lists them back (apidef/oas NewHeaders: by name, byte order),
// so that the API the Gateway loads is listed as it was sent, which sync checks (a case-insensitive order puts
// vary before X-Frame-Options; Tyk puts it after).
func sortAsTyk(hs []tykoas.Header) {
	sort.Slice(hs, func(i, j int) bool { return hs[i].Name < hs[j].Name })
}

// responseHeaderTransform compiles a ResponseHeaderModifier. Its add is served only where the Gateways keep
// header names as written: each name may be added once and not also be set or removed by the filter, as for a
// request's add (addConflicts), and must have a name to be added by (appendName).
func responseHeaderTransform(field string, h *gwv1.HTTPHeaderFilter, names HeaderNames, add func(string, string, ...any)) *tykoas.TransformHeaders {
	if h == nil || len(h.Add) == 0 || names == HeaderNamesAsGiven {
		t, _ := headerTransform(field, h, false, add)
		return names.setByCanonicalName(t)
	}
	if names == HeaderNamesCanonicalized {
		add(field+".add", "not supported on Tyk Gateways that write header names in canonical form (Tyk's default), "+
			"where it would replace the response's value: run them with ignore_canonical_mime_header_key: true in "+
			"tyk.conf and say so in the RenderConfig (spec.%s: true) to serve it, or use set to replace the value",
			config.HeaderNamesKey)
		return nil
	}
	setRemove := *h
	setRemove.Add = nil
	t, _ := headerTransform(field, &setRemove, false, add)
	t = names.setByCanonicalName(t)
	ok := addConflicts(field, h, add)
	for k, a := range h.Add {
		name, can := appendName(string(a.Name))
		if !can {
			add(fmt.Sprintf("%s.add[%d].name", field, k), "%s has no upper-case letter in its canonical form: Tyk "+
				"adds a header beside the response's by a name in lower case that differs from the canonical form, "+
				"and none does", a.Name)
			ok = false
			continue
		}
		t.Add = append(t.Add, tykoas.Header{Name: name, Value: a.Value})
	}
	if !ok {
		return nil
	}
	sortAsTyk(t.Add)
	return t
}

// appendName is the name a header is added by beside the value a message has: its lower case, which Tyk writes
// as a line of its own where it differs from the canonical form, and which Go's HTTP server writes after the
// canonical line (it writes a header's names in byte order, and a lower-case letter sorts after an upper-case
// one), so the value follows the message's own, as Gateway API's add appends. A name whose canonical form has no
// letter in upper case (1st, 42) has no such name: any other case of it would sort first (false).
func appendName(name string) (string, bool) {
	lower := strings.ToLower(name)
	return lower, lower != http.CanonicalHeaderKey(name)
}
