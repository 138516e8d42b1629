package apidiff

// Report is what changes between two snapshots. Every list is sorted, so the same inputs give the same report.
type Report struct {
	Added     []Ref       `json:"added"`
	Removed   []Ref       `json:"removed"`
	Changed   []APIChange `json:"changed"`
	Unchanged int         `json:"unchanged"`
	// Status lists the objects whose would-be status changes.
	Status  []StatusChange `json:"status"`
	Results ResultChange   `json:"results"`
	// Risks are the risky changes, in report order; Failing are those that --fail-on selects.
	Risks   []Risk `json:"risks"`
	Failing int    `json:"failing"`
	// OldOwners and NewOwners are the owners of each side's APIs, sorted (the summary names them).
	OldOwners []string `json:"oldOwners"`
	NewOwners []string `json:"newOwners"`
}

// APIChange is an API on both sides whose document changed, aspect by aspect.
type APIChange struct {
	Ref
	Aspects []AspectChange `json:"aspects"`
}

// AspectChange is one aspect of an API: the lines it lost and the lines it gained.
type AspectChange struct {
	Aspect  string   `json:"aspect"`
	Removed []string `json:"removed,omitempty"`
	Added   []string `json:"added,omitempty"`
	Risk    RiskKind `json:"risk,omitempty"`
}

// StatusChange is one object whose status changes.
type StatusChange struct {
	Object  Object   `json:"object"`
	Changes []Change `json:"changes"`
}

// Change is one line of a status change; Warning marks a condition that stops being as it should be.
type Change struct {
	Subject string   `json:"subject"`
	Old     string   `json:"old"`
	New     string   `json:"new"`
	Warning bool     `json:"warning,omitempty"`
	Risk    RiskKind `json:"risk,omitempty"`
}

// ResultChange is the render results that appear and disappear; Known is false when a side is an already
// rendered stream, which carries no results.
type ResultChange struct {
	Known       bool     `json:"known"`
	Appeared    []string `json:"appeared"`
	Disappeared []string `json:"disappeared"`
}

// Risk is one risky change: its kind and what it is about.
type Risk struct {
	Kind    RiskKind `json:"kind"`
	Subject string   `json:"subject"`
	Failing bool     `json:"failing"`
}
