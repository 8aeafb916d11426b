// Whole-document validation: parse layer (json_parse.go), schema layer (schema.go), then the rules
// (rules.go); and the checked writer of typed values. TypeScript twin: runtime/wire/validate.ts.

package lifeloop

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// validateTree runs the schema layer, the integer-lexeme check and the rules on a parsed tree.
func validateTree(typeName string, root *node, nonInteger int) []Issue {
	meta := typeMetaOf(typeName)
	path := getPath()
	issue := checkObject(meta, root, path)
	putPath(path)
	if issue != nil {
		return []Issue{*issue}
	}
	if nonInteger > 0 {
		if issue := integerLexemeIssue(meta, root, ""); issue != nil {
			return []Issue{*issue}
		}
	}
	return evaluateRules(typeName, root)
}

// decodeDocument parses and validates the bytes of one document of type typeName.
func decodeDocument(typeName string, data []byte, limits DocumentLimits) (*node, error) {
	root, nonInteger, issue := parseTyped(data, limits, typeMetaOf(typeName))
	if issue != nil {
		return nil, newValidationError(typeName, []Issue{*issue})
	}
	if err := checkParsed(typeName, root, nonInteger); err != nil {
		return nil, err
	}
	return root, nil
}

// checkParsed validates a tree parsed along the schema of typeName (as parseTyped parses it) that
// holds nonInteger numbers written with a fraction, an exponent or as -0 in integer fields: the
// verdict decodeDocument gives once the parse passed, nil or a *ValidationError.
func checkParsed(typeName string, root *node, nonInteger int) error {
	if issues := validateTree(typeName, root, nonInteger); len(issues) > 0 {
		return newValidationError(typeName, issues)
	}
	return nil
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

// checkValueTree validates a tree built from a Go value (no lexemes to check).
func checkValueTree(typeName string, root *node) error {
	if issue := encodeIssue(root); issue != nil {
		return newValidationError(typeName, []Issue{*issue})
	}
	if issues := validateTree(typeName, root, 0); len(issues) > 0 {
		return newValidationError(typeName, issues)
	}
	return nil
}

// encodeDocument validates a tree built from a Go value and writes it as compact JSON.
func encodeDocument(typeName string, root *node) ([]byte, error) {
	return appendDocument(make([]byte, 0, 512), typeName, root)
}

// appendDocument is encodeDocument appending the JSON to b (b's bytes are kept).
func appendDocument(b []byte, typeName string, root *node) ([]byte, error) {
	// The same verdict as checkValueTree followed by writeNode, with the check and the writing in one walk.
	path := getPath()
	data, issue := appendChecked(b, root, path)
	putPath(path)
	if issue != nil {
		return nil, newValidationError(typeName, []Issue{*issue})
	}
	if issues := validateTree(typeName, root, 0); len(issues) > 0 {
		return nil, newValidationError(typeName, issues)
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
// WireObjectTypes) with DefaultDocumentLimits. It returns nil when the document is valid, a
// *ValidationError when it is not, and a plain error for an unknown type name.
func ValidateDocument(typeName string, data []byte) error {
	return ValidateDocumentWithLimits(typeName, data, DefaultDocumentLimits)
}

// ValidateDocumentWithLimits is ValidateDocument with explicit limits.
func ValidateDocumentWithLimits(typeName string, data []byte, limits DocumentLimits) error {
	if !contains(WireObjectTypes, typeName) {
		return fmt.Errorf("lifeloop: unknown wire object type %q (want one of %s)", typeName, strings.Join(WireObjectTypes, ", "))
	}
	_, err := decodeDocument(typeName, data, limits)
	return err
}
