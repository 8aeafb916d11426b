// Validation issues: the one shape every problem takes, in every layer and binding
// (spec/README.md, "Validation issues"). TypeScript twin: runtime/wire/issues.ts.

package lifeloop

import "fmt"

// Issue is one validation problem, the same in every binding (spec/README.md, "Validation issues").
type Issue struct {
	// Rule is the stable rule id: json.* (parse layer), schema.* (schema layer) or a rule id of
	// spec/tables/rules.json (e.g. non-empty-identifier). The Rule* constants name them all.
	Rule string

	// Pointer is the RFC 6901 JSON pointer of the offending value ("" is the document root); for a
	// missing member, the pointer of the member that should be there.
	Pointer string

	// Message explains the problem for humans. It is not stable: do not parse it.
	Message string
}

// ValidationError is returned by every Decode*, Encode* and Validate function when a document or
// value breaks the wire contract. The embedded Issue is the primary (first) problem; Issues lists
// every problem found (the parse and schema layers stop at the first one, the rules layer reports
// all of them).
type ValidationError struct {
	// Type is the wire type that was being decoded or encoded, e.g. "CallbackRequest".
	Type string

	Issue

	// Issues holds every issue found; Issues[0] equals the embedded Issue.
	Issues []Issue
}

// Error renders the primary issue: `CallbackRequest is invalid: schema.required at "/event_id": ...`.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s is invalid: %s at %q: %s", e.Type, e.Rule, e.Pointer, e.Message)
}

func newValidationError(typeName string, issues []Issue) *ValidationError {
	return &ValidationError{Type: typeName, Issue: issues[0], Issues: issues}
}
