package apidiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pull request comment folds a list longer than ten into <details>, and leaves a short one open.
func TestMarkdownFoldsLongLists(t *testing.T) {
	old, new := &Snapshot{APIs: map[string]*API{}}, &Snapshot{APIs: map[string]*API{}}
	for i := 0; i < 11; i++ {
		id := fmt.Sprintf("gwapi-%02d", i)
		old.APIs[id] = &API{Ref: Ref{ID: id, Route: "shop/r" + id, Gateway: "shop/edge", Hostname: "a.example.com", Path: "/" + id}}
	}
	new.APIs["gwapi-new"] = &API{Ref: Ref{ID: "gwapi-new", Route: "shop/new", Gateway: "shop/edge", Hostname: "b|c", Path: "/"}}
	r, err := Compare(old, new, map[RiskKind]bool{RiskAPIRemoved: true})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, r.WriteMarkdown(&b))
	md := b.String()
	assert.Contains(t, md, "#### Removed APIs (11)\n\n<details><summary>11 removed APIs</summary>\n\n| Route |")
	assert.Contains(t, md, "#### :warning: Risky changes (11, 11 failing)\n\n<details><summary>11 risky changes</summary>")
	assert.Contains(t, md, "#### Added APIs (1)\n\n| Route |", "a short list is not folded")
	assert.Contains(t, md, "| `b\\|c` |", "a pipe cannot end a table cell")
	assert.Equal(t, 1, strings.Count(md, "</details>\n\n#### Added APIs"), "the fold closes before the next section")
	assert.True(t, strings.HasSuffix(md, "\n"+r.Summary()+"\n"), "the summary ends the comment")
}
