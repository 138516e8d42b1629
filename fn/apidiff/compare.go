package apidiff

import (
	"fmt"
	"sort"
	"strings"
)

// Compare reports what changes from old to new. failOn selects the risk kinds that fail (Report.Failing). An
// error is a document or status annotation of an already rendered stream that cannot be read.
func Compare(old, new *Snapshot, failOn map[RiskKind]bool) (*Report, error) {
	r := &Report{Added: []Ref{}, Removed: []Ref{}, Changed: []APIChange{}, Status: []StatusChange{}, Risks: []Risk{}}
	for id, a := range old.APIs {
		if _, ok := new.APIs[id]; !ok {
			r.Removed = append(r.Removed, a.Ref)
		}
	}
	for id, b := range new.APIs {
		a, ok := old.APIs[id]
		switch {
		case !ok:
			r.Added = append(r.Added, b.Ref)
		case a.Document == b.Document && a.Base == b.Base && a.Owner == b.Owner:
			r.Unchanged++
		default:
			aspects, err := compareAPI(a, b)
			if err != nil {
				return nil, err
			}
			if a.Owner != b.Owner {
				aspects = append([]AspectChange{{Aspect: AspectOwner, Removed: []string{a.Owner}, Added: []string{b.Owner}}}, aspects...)
			}
			if len(aspects) == 0 {
				r.Unchanged++ // the same facts written differently
				continue
			}
			r.Changed = append(r.Changed, APIChange{Ref: b.Ref, Aspects: aspects})
		}
	}
	r.OldOwners, r.NewOwners = old.owners(), new.owners()
	sortRefs(r.Added)
	sortRefs(r.Removed)
	sort.Slice(r.Changed, func(i, j int) bool { return refLess(r.Changed[i].Ref, r.Changed[j].Ref) })

	var err error
	if r.Status, err = compareStatus(old.Status, new.Status); err != nil {
		return nil, err
	}
	if r.Status == nil {
		r.Status = []StatusChange{} // -o json: a list, never null
	}
	r.Results = ResultChange{Known: old.ResultsKnown && new.ResultsKnown, Appeared: []string{}, Disappeared: []string{}}
	if r.Results.Known {
		r.Results.Disappeared, r.Results.Appeared = lineDiff(old.Results, new.Results)
	}

	risk := func(kind RiskKind, subject string) {
		r.Risks = append(r.Risks, Risk{Kind: kind, Subject: subject, Failing: failOn[kind]})
		if failOn[kind] {
			r.Failing++
		}
	}
	for _, a := range r.Removed {
		if !a.Internal() {
			risk(RiskAPIRemoved, "API "+a.String())
		}
	}
	for _, c := range r.Changed {
		for _, a := range c.Aspects {
			if a.Risk != "" {
				risk(a.Risk, "API "+c.Ref.String()+": "+a.Aspect)
			}
		}
	}
	for _, s := range r.Status {
		for _, c := range s.Changes {
			if c.Risk != "" {
				risk(c.Risk, s.Object.String()+": "+c.Subject)
			}
		}
	}
	// An error on the new side fails its render; when the old side is a rendered stream (no results to compare
	// with), every error of the new side counts as new.
	newErrors := r.Results.Appeared
	if !old.ResultsKnown && new.ResultsKnown {
		newErrors = new.Results
	}
	for _, l := range newErrors {
		if isErrorResult(l) {
			risk(RiskNewError, "result "+l)
		}
	}
	return r, nil
}

// compareAPI describes both documents and keeps the aspects that differ.
func compareAPI(a, b *API) ([]AspectChange, error) {
	before, err := Describe(a.Document, a.Base, a.HeaderNamesKept)
	if err != nil {
		return nil, fmt.Errorf("API %s (old): %v", a.ID, err)
	}
	after, err := Describe(b.Document, b.Base, b.HeaderNamesKept)
	if err != nil {
		return nil, fmt.Errorf("API %s (new): %v", b.ID, err)
	}
	var out []AspectChange
	for _, aspect := range aspectOrder {
		removed, added := lineDiff(before[aspect], after[aspect])
		if len(removed) == 0 && len(added) == 0 {
			continue
		}
		c := AspectChange{Aspect: aspect, Removed: removed, Added: added}
		if aspect == AspectAuthentication && authTurnedOff(before[aspect], after[aspect], added) {
			c.Risk = RiskAuthOff
		}
		out = append(out, c)
	}
	return out, nil
}

// authTurnedOff: the API stops asking for authentication, or some of its methods stop while it still asks.
func authTurnedOff(before, after, added []string) bool {
	on := func(lines []string) bool {
		for _, l := range lines {
			if strings.HasPrefix(l, "on") {
				return true
			}
		}
		return false
	}
	if on(before) && !on(after) {
		return true
	}
	if on(after) {
		for _, l := range added {
			if strings.HasSuffix(l, ": no authentication") {
				return true
			}
		}
	}
	return false
}

// lineDiff returns the lines only in a and the lines only in b, each in its list's order.
func lineDiff(a, b []string) (onlyA, onlyB []string) {
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, l := range a {
		inA[l] = true
	}
	for _, l := range b {
		inB[l] = true
	}
	onlyA, onlyB = []string{}, []string{}
	for _, l := range a {
		if !inB[l] {
			onlyA = append(onlyA, l)
		}
	}
	for _, l := range b {
		if !inA[l] {
			onlyB = append(onlyB, l)
		}
	}
	return onlyA, onlyB
}

// String names an API: route, Gateway, hostname and path, what it is for when it is not a plain API, API ID.
func (r Ref) String() string {
	if w := r.RoleWords(); w != "" {
		return fmt.Sprintf("%s on %s, %s%s, %s (%s)", r.Route, r.Gateway, r.Hostname, r.Path, w, r.ID)
	}
	return fmt.Sprintf("%s on %s, %s%s (%s)", r.Route, r.Gateway, r.Hostname, r.Path, r.ID)
}

// RoleWords says what an API of a routed path is for, in a reviewer's words ("" for a plain API).
func (r Ref) RoleWords() string {
	switch {
	case r.Role == "router":
		return "the router of its header, query and method matches"
	case strings.HasPrefix(r.Role, "internal "):
		return "the internal API of " + strings.TrimPrefix(r.Role, "internal ") + ", reached through the router"
	case r.Role == "no rule":
		return "the internal API that answers 404 where no rule matches"
	}
	return r.Role
}

// Internal reports whether Tyk reaches the API only through a router: its removal removes nothing a client could
// call, and the router's routing says where its requests go instead.
func (r Ref) Internal() bool { return strings.HasPrefix(r.Role, "internal ") || r.Role == "no rule" }

func sortRefs(refs []Ref) { sort.Slice(refs, func(i, j int) bool { return refLess(refs[i], refs[j]) }) }

func refLess(a, b Ref) bool {
	ka := [5]string{a.Route, a.Gateway, a.Hostname, a.Path, a.ID}
	kb := [5]string{b.Route, b.Gateway, b.Hostname, b.Path, b.ID}
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return false
}
