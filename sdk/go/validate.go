// Whole-document validation: parse layer (json_parse.go), version selection (window.go), schema
// layer (schema.go), then the rules (rules.go); and the checked writer of typed values. TypeScript
// twin: runtime/wire/validate.ts.

package lifeloop

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// validateTree judges a tree of typeName by window w: the version selection of spec/wire-window.md
// ("How a document is judged"), then the schema layer, the integer-lexeme check and the rules of the
// chosen version. The tree is one parsed along the schemas of that version, or built from a Go value.
// carried is the document's own version when w holds it ("" otherwise).
func validateTree(typeName string, root *node, nonInteger int, w Window) (carried string, issues []Issue, err error) {
	c := w.choose(root)
	issues, err = c.judge(w, typeName, root, nonInteger)
	return c.carried, issues, err
}

// decodeDocument parses and validates the bytes of one document of type typeName, read by window w;
// carried is as validateTree's, also when the document is invalid (a runner answers in it).
func decodeDocument(typeName string, data []byte, limits DocumentLimits, w Window) (root *node, carried string, err error) {
	// The parse layer is not versioned (spec/wire-window.md, step 1): current's limits and rules,
	// along current's schema of typeName (only the tree it keeps depends on the schema).
	root, nonInteger, issue := parseTyped(data, limits, typeMetaOf(typeName))
	if issue != nil {
		return nil, "", newValidationError(typeName, []Issue{*issue})
	}
	c := w.choose(root)
	if !c.by.sameShapes && c.by.metaOf(typeName) != nil {
		// The chosen version's shapes differ from current's: its tree is the one parsed along them
		// (the same bytes, so the same parse verdict).
		root, nonInteger, _ = parseIn(data, limits, typeName, c.by.metaOf)
	}
	issues, err := c.judge(w, typeName, root, nonInteger)
	if err != nil {
		return nil, c.carried, err
	}
	if len(issues) > 0 {
		return nil, c.carried, newValidationError(typeName, issues)
	}
	return root, c.carried, nil
}

// checkParsed validates a tree parsed along current's schema of typeName (as parseTyped parses it)
// that holds nonInteger numbers written with a fraction, an exponent or as -0 in integer fields,
// read by the default window: the verdict decodeDocument gives once the parse passed, nil or a
// *ValidationError, and the version the document carries (as validateTree's). The caller makes sure
// the chosen version shares current's shapes (treeJudgeable).
func checkParsed(typeName string, root *node, nonInteger int) (string, error) {
	carried, issues, err := validateTree(typeName, root, nonInteger, Window{})
	if err != nil {
		return carried, err
	}
	if len(issues) > 0 {
		return carried, newValidationError(typeName, issues)
	}
	return carried, nil
}

// treeJudgeable reports whether a tree parsed along current's schemas can be judged by the default
// window as it is: the version it selects shares current's shapes (else the bytes are parsed again,
// decodeDocument).
func treeJudgeable(root *node) bool {
	return Window{}.choose(root).by.sameShapes
}

// encodeIssue finds, in document order, the first Go value without a JSON form: a string that is
// not valid UTF-8 (json.utf8), or in an open map anything appendAny refuses (json.number-range,
// json.utf8, json.max-depth, schema.type). Pointers are built only for the issue found.
func encodeIssue(root *node) *Issue {
	var path []slot
	_, issue := appendChecked(nil, root, &path)
	return issue
}

// appendChecked appends the compact JSON of n (as writeNode does) and returns the first issue
// encodeIssue would find, in the same document order; the bytes are not usable when it does. One
// walk both checks and writes, so an encoded document costs one pass over its open maps.
func appendChecked(b []byte, n *node, path *[]slot) ([]byte, *Issue) {
	switch n.kind {
	case kindString:
		if !utf8.ValidString(n.str) {
			return b, pathIssue(RuleJSONUTF8, *path, "string is not valid UTF-8")
		}
		return appendString(b, n.str), nil
	case kindArray:
		return appendArray(b, n.items, path, appendChecked)
	case kindObject:
		if n.open != nil {
			return appendAny(b, n.open, path)
		}
		b = append(b, '{')
		for i, k := range n.keys {
			*path = append(*path, slot{key: k})
			if !utf8.ValidString(k) {
				return b, pathIssue(RuleJSONUTF8, *path, "member name is not valid UTF-8")
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var issue *Issue
			if b, issue = appendChecked(b, n.values[i], path); issue != nil {
				return b, issue
			}
			*path = (*path)[:len(*path)-1]
		}
		return append(b, '}'), nil
	}
	return writeNode(b, n), nil
}

// checkValueTree validates a tree built from a Go value (no lexemes to check) by window w.
func checkValueTree(typeName string, root *node, w Window) error {
	if issue := encodeIssue(root); issue != nil {
		return newValidationError(typeName, []Issue{*issue})
	}
	return treeVerdict(typeName, root, w)
}

// treeVerdict is validateTree of a tree built from a Go value as an error: nil, a *ValidationError,
// or the plain error of a type the chosen version lacks.
func treeVerdict(typeName string, root *node, w Window) error {
	_, issues, err := validateTree(typeName, root, 0, w)
	if err != nil {
		return err
	}
	if len(issues) > 0 {
		return newValidationError(typeName, issues)
	}
	return nil
}

// encodeDocument validates a tree built from a Go value by window w and writes it as compact JSON.
func encodeDocument(typeName string, root *node, w Window) ([]byte, error) {
	return appendDocument(make([]byte, 0, 512), typeName, root, w)
}

// appendDocument is encodeDocument appending the JSON to b (b's bytes are kept).
func appendDocument(b []byte, typeName string, root *node, w Window) ([]byte, error) {
	// The same verdict as checkValueTree followed by writeNode, with the check and the writing in one walk.
	path := getPath()
	data, issue := appendChecked(b, root, path)
	putPath(path)
	if issue != nil {
		return nil, newValidationError(typeName, []Issue{*issue})
	}
	if err := treeVerdict(typeName, root, w); err != nil {
		return nil, err
	}
	// A document of n bytes holds at most (n+1)/2 values: one longer than 2*limits.max_values may
	// hold more than every reader accepts (json.max-values); they are counted on the bytes written,
	// as a reader counts them.
	if out := data[len(b):]; len(out) > 2*LimitMaxValues && compactValueCount(out) > LimitMaxValues {
		// Over: the reader's own issue (the pointer of the first value past the limit).
		if _, _, issue := parse(out, DocumentLimits{MaxBytes: len(out), MaxDepth: LimitMaxDepth, MaxValues: LimitMaxValues}, nil); issue != nil {
			return nil, newValidationError(typeName, []Issue{*issue})
		}
	}
	return data, nil
}

// compactValueCount is the number of JSON values in data, compact JSON this SDK wrote (valid, no
// whitespace, nesting within LimitMaxDepth): the root, one per object member (a colon outside the
// strings) and one per array element, counted in one pass that allocates nothing.
func compactValueCount(data []byte) int {
	var stack [LimitMaxDepth + 1]bool // per open container: is it an array
	depth, count := 0, 1
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case ':':
			count++
		case '[', '{':
			if depth < len(stack) {
				stack[depth] = data[i] == '['
			}
			depth++
			if data[i] == '[' && i+1 < len(data) && data[i+1] != ']' {
				count++
			}
		case ']', '}':
			depth--
		case ',':
			if depth > 0 && depth <= len(stack) && stack[depth-1] {
				count++
			}
		}
	}
	return count
}

// ValidateDocument parses and validates one document of the named wire object type (one of
// WireObjectTypes) with DefaultDocumentLimits, judged by the version of the default window
// (WireWindow) it carries. It returns nil when the document is valid, a *ValidationError when it
// is not, and a plain error for an unknown type name.
func ValidateDocument(typeName string, data []byte) error {
	return ValidateDocumentInWindow(typeName, data, DefaultDocumentLimits, Window{})
}

// ValidateDocumentWithLimits is ValidateDocument with explicit limits.
func ValidateDocumentWithLimits(typeName string, data []byte, limits DocumentLimits) error {
	return ValidateDocumentInWindow(typeName, data, limits, Window{})
}

// ValidateDocumentInWindow is ValidateDocumentWithLimits reading with window (the zero Window is
// the default one; NewWindow closes it, e.g. to the one version a host speaks): a document whose
// schema_version is in window is judged by that version's schemas and rules, one outside it gets
// the single issue OutsideWindowRule at "/schema_version" (spec/wire-window.md).
func ValidateDocumentInWindow(typeName string, data []byte, limits DocumentLimits, window Window) error {
	if !contains(WireObjectTypes, typeName) {
		return fmt.Errorf("lifeloop: unknown wire object type %q (want one of %s)", typeName, strings.Join(WireObjectTypes, ", "))
	}
	_, _, err := decodeDocument(typeName, data, limits, window)
	return err
}
