package apidiff

import "io"

// Formatted is a report in diff's three formats: the pull-request Report and sync --check's Drift.
type Formatted interface {
	WriteText(w io.Writer) error
	WriteMarkdown(w io.Writer) error
	WriteJSON(w io.Writer) error
}

// WriteFormat writes r in the format -o names: markdown, json, or text (anything else; the commands check -o).
func WriteFormat(w io.Writer, format string, r Formatted) error {
	switch format {
	case "markdown":
		return r.WriteMarkdown(w)
	case "json":
		return r.WriteJSON(w)
	default:
		return r.WriteText(w)
	}
}
