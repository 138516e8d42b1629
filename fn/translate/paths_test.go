package translate

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// testRule is a compiled rule for planPaths: the (path, method) pairs it matches, the Service it sends to, and a
// request header it sets ("" for none).
func testRule(index int, backend string, header string, pairs ...pair) *rule {
	r := &rule{index: index, pairs: pairs,
		upstream: &upstreamSpec{backends: []attachment.Backend{service("shop", backend, 8080, 1)}}}
	if header != "" {
		r.behaviour.requestHeaders = &tykoas.TransformHeaders{Enabled: true,
			Add: []tykoas.Header{{Name: "X-Orders-Access", Value: header}}}
	}
	return r
}

func on(path, method string) pair { return pair{path: path, method: method} }

type planSummary struct {
	paths   map[string][]int    // path → rules
	methods map[string][]string // path → methods planned ("" for every method)
	dropped []int               // rules dropped, ascending
	fields  map[int]string      // rule → field of its drop
}

func summarize(plans []*pathPlan, drops []Drop) planSummary {
	s := planSummary{paths: map[string][]int{}, methods: map[string][]string{}, fields: map[int]string{}}
	for _, p := range plans {
		s.paths[p.path] = p.rules
		for m := range p.methods {
			s.methods[p.path] = append(s.methods[p.path], m)
		}
		sort.Strings(s.methods[p.path])
	}
	for _, d := range drops {
		s.dropped = append(s.dropped, d.Rule)
		s.fields[d.Rule] = d.Field
	}
	sort.Ints(s.dropped)
	return s
}

// TestPlanPaths is the rule of the reference that rules matching the same path must use the same backends and, for
// overlapping methods, the same filters, else they are rejected; rules on one path become one API.
func TestPlanPaths(t *testing.T) {
	t.Run("same path, same backend, same filters: one plan", func(t *testing.T) {
		s := summarize(planPathsRef([]*rule{
			testRule(0, "orders", "", on("/orders", "GET")),
			testRule(1, "orders", "", on("/orders", "POST"), on("/orders", "GET")),
		}))
		if len(s.dropped) != 0 || !reflect.DeepEqual(s.paths["/orders"], []int{0, 1}) ||
			!reflect.DeepEqual(s.methods["/orders"], []string{"GET", "POST"}) {
			t.Fatalf("%+v", s)
		}
	})
	t.Run("same path, different backends: both dropped", func(t *testing.T) {
		plans, drops := planPathsRef([]*rule{
			testRule(0, "orders", "", on("/orders", "GET")),
			testRule(1, "orders-writer", "", on("/orders", "POST")),
			testRule(2, "orders", "", on("/invoices", anyMethod)),
		})
		s := summarize(plans, drops)
		if !reflect.DeepEqual(s.dropped, []int{0, 1}) || len(s.paths) != 1 || s.paths["/invoices"] == nil {
			t.Fatalf("%+v", s)
		}
		if s.fields[0] != "spec.rules[0]" || s.fields[1] != "spec.rules[1]" {
			t.Fatalf("fields %v", s.fields)
		}
		for _, d := range drops {
			if !strings.Contains(d.Message, "/orders") || !strings.Contains(d.Message, "other backends") {
				t.Errorf("message %q should name the path and the backends", d.Message)
			}
		}
	})
	t.Run("same path, overlapping methods, different filters: both dropped", func(t *testing.T) {
		for name, rules := range map[string][]*rule{
			"GET and GET": {testRule(0, "orders", "read", on("/orders", "GET")),
				testRule(1, "orders", "write", on("/orders", "GET"))},
			"any method and GET": {testRule(0, "orders", "web", on("/orders", anyMethod)),
				testRule(1, "orders", "cache", on("/orders", "GET"))},
			"GET and any method": {testRule(0, "orders", "cache", on("/orders", "GET")),
				testRule(1, "orders", "", on("/orders", anyMethod))},
		} {
			s := summarize(planPathsRef(rules))
			if !reflect.DeepEqual(s.dropped, []int{0, 1}) || len(s.paths) != 0 {
				t.Errorf("%s: %+v", name, s)
			}
		}
	})
	t.Run("same path, disjoint methods, different filters: separate operations", func(t *testing.T) {
		plans, drops := planPathsRef([]*rule{
			testRule(0, "orders", "read", on("/orders", "GET")),
			testRule(1, "orders", "write", on("/orders", "POST"), on("/orders", "DELETE")),
		})
		if len(drops) != 0 || len(plans) != 1 {
			t.Fatalf("plans %d, drops %+v", len(plans), drops)
		}
		p := plans[0]
		if got := p.methods["GET"].requestHeaders.Add[0].Value; got != "read" {
			t.Errorf("GET sets %q", got)
		}
		if p.methods["POST"].key() != p.methods["DELETE"].key() || p.methods["POST"].key() == p.methods["GET"].key() {
			t.Errorf("POST and DELETE should share rule 1's behaviour, GET rule 0's")
		}
		d := tykoas.NewDocument("gwapi-test")
		p.operations(d, "", baseURL)
		ops := d.Tyk.Middleware.Operations
		if ops["get"].TransformRequestHeaders == nil || ops["post"].TransformRequestHeaders == nil ||
			ops["delete"].TransformRequestHeaders == nil || ops["put"].MockResponse == nil || ops["put"].MockResponse.Code != 404 {
			t.Errorf("operations %+v", ops)
		}
	})
	t.Run("a dropped rule frees a path", func(t *testing.T) {
		// Rule 0 matches /orders and /invoices; it conflicts with rule 1 on /orders, so it is dropped, and /invoices
		// is then served by rule 2 alone.
		s := summarize(planPathsRef([]*rule{
			testRule(0, "orders", "", on("/orders", anyMethod), on("/invoices", anyMethod)),
			testRule(1, "orders-writer", "", on("/orders", anyMethod)),
			testRule(2, "orders", "", on("/invoices", anyMethod)),
		}))
		if !reflect.DeepEqual(s.dropped, []int{0, 1}) || len(s.paths) != 1 || !reflect.DeepEqual(s.paths["/invoices"], []int{2}) {
			t.Fatalf("%+v", s)
		}
	})
	t.Run("rules that all agree on a path are one plan whatever their order", func(t *testing.T) {
		s := summarize(planPathsRef([]*rule{
			testRule(0, "orders", "", on("/orders", anyMethod)),
			testRule(1, "orders", "", on("/orders", anyMethod)),
		}))
		if len(s.dropped) != 0 || !reflect.DeepEqual(s.paths["/orders"], []int{0, 1}) {
			t.Fatalf("%+v", s)
		}
	})
}

// TestPlanPathsDoesNotDependOnRuleOrder: the reference says no rule of a conflict can be preferred and that the
// APIs do not depend on the order of the rules, so the same rules in any order must drop the same rules (by
// content) and plan the same paths.
func TestPlanPathsDoesNotDependOnRuleOrder(t *testing.T) {
	for name, specs := range map[string][]orderSpec{
		"one backend against two that agree": {
			{"orders", "", []pair{on("/orders", anyMethod)}},
			{"orders-writer", "", []pair{on("/orders", anyMethod)}},
			{"orders-writer", "", []pair{on("/orders", anyMethod)}},
		},
		"one filter against two that agree": {
			{"orders", "web", []pair{on("/orders", "GET")}},
			{"orders", "cache", []pair{on("/orders", "GET")}},
			{"orders", "cache", []pair{on("/orders", "GET")}},
		},
		"a method-less rule between two method rules that disagree": {
			{"orders", "read", []pair{on("/orders", "GET")}},
			{"orders", "", []pair{on("/orders", anyMethod)}},
			{"orders", "write", []pair{on("/orders", "POST")}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			var first string
			var firstPerm []int
			for _, perm := range permutations(len(specs)) {
				var rules []*rule
				for i, k := range perm {
					s := specs[k]
					rules = append(rules, testRule(i, s.backend, s.header, s.pairs...))
				}
				plans, drops := planPathsRef(rules)
				// Describe the outcome by content (two rules written alike are the same rule): the rules dropped, the
				// rules kept, and the paths planned.
				droppedIdx := map[int]bool{}
				for _, d := range drops {
					droppedIdx[d.Rule] = true
				}
				var kept, dropped []string
				for i, k := range perm {
					if droppedIdx[i] {
						dropped = append(dropped, specs[k].describe())
					} else {
						kept = append(kept, specs[k].describe())
					}
				}
				sort.Strings(kept)
				sort.Strings(dropped)
				var paths []string
				for _, p := range plans {
					paths = append(paths, p.path)
				}
				outcome := fmt.Sprintf("kept %v, dropped %v, paths %v", kept, dropped, paths)
				if first == "" {
					first, firstPerm = outcome, perm
				} else if outcome != first {
					t.Fatalf("with the rules in the order %v: %s; in the order %v: %s", perm, outcome, firstPerm, first)
				}
			}
		})
	}
}

type orderSpec struct {
	backend, header string
	pairs           []pair
}

func (s orderSpec) describe() string {
	return fmt.Sprintf("%s%s%v", s.backend, map[bool]string{true: "+" + s.header, false: ""}[s.header != ""], s.pairs)
}

func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// planPathsRef is planPaths as the reference plans: methods not routed.
func planPathsRef(rules []*rule) ([]*pathPlan, []Drop) { return planPaths(rules, false) }
