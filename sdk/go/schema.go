// The schema layer (schema.* rules): shape checks of a parsed node tree against the generated
// typeMeta of zz_wire_meta.go (and zz_window.go for an older version whose shapes differ). TypeScript twin: runtime/wire/schema.ts.

package lifeloop

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// ---------------------------------------------------------------------------
// Schema layer (schema.* rules), driven by the generated per-type metadata (wire_types.go). It
// reports the first issue in the order spec/wire-contract.md "Order of the schema layer" defines:
// object type, required members in the schema's `required` order, unknown members in JavaScript
// property order (array index names first, ascending, then document order), then each declared
// field in schema order; integer lexemes only after that walk found nothing.

// shapeKind is the value shape of a field.
type shapeKind uint8

const (
	shapeString shapeKind = iota + 1
	shapeInteger
	shapeEnum
	shapeObject
	shapeOpenObject
	shapeArray
)

// shape describes the values a field accepts (after its null branch).
type shape struct {
	kind shapeKind
	// maxLength bounds strings, in code points.
	maxLength int
	// minimum and maximum bound integers.
	minimum float64
	maximum float64
	// enumName and enum are the enum type and its values.
	enumName string
	enum     []string
	// typeName is the object type of shapeObject.
	typeName string
	// items and maxItems describe arrays.
	items    *shape
	maxItems int
}

// fieldMeta describes one declared member of an object type.
type fieldMeta struct {
	name     string
	nullable bool
	shape    shape
}

// typeMeta describes one closed wire object type.
type typeMeta struct {
	name     string
	required []string
	fields   []fieldMeta
}

func (t *typeMeta) field(name string) *fieldMeta {
	for i := range t.fields {
		if t.fields[i].name == name {
			return &t.fields[i]
		}
	}
	return nil
}

// isArrayIndexName reports names that JavaScript enumerates before all others (canonical
// decimal integers below 2^32-1).
func isArrayIndexName(name string) bool {
	if name == "" || len(name) > 10 || (len(name) > 1 && name[0] == '0') {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isDigit(name[i]) {
			return false
		}
	}
	v, err := strconv.ParseUint(name, 10, 64)
	return err == nil && v < math.MaxUint32
}

// jsOrder returns member names in JavaScript property enumeration order.
func jsOrder(keys []string) []string {
	anyIndex := false
	for _, k := range keys {
		if k != "" && k[0] >= '0' && k[0] <= '9' && isArrayIndexName(k) {
			anyIndex = true
			break
		}
	}
	if !anyIndex {
		return keys
	}
	var indexes, others []string
	for _, k := range keys {
		if isArrayIndexName(k) {
			indexes = append(indexes, k)
		} else {
			others = append(others, k)
		}
	}
	sort.Slice(indexes, func(i, j int) bool {
		a, _ := strconv.ParseUint(indexes[i], 10, 64)
		b, _ := strconv.ParseUint(indexes[j], 10, 64)
		return a < b
	})
	return append(indexes, others...)
}

func schemaIssue(rule, pointer, message string) *Issue {
	return &Issue{Rule: rule, Pointer: pointer, Message: message}
}

// requiredFields is, by type, the index in t.fields of each of t.required, in that order; a type
// with a required member it does not declare has none (checkObject then searches by name). It
// covers the metadata of every readable version (window.go).
var requiredFields = sync.OnceValue(func() map[*typeMeta][]int {
	all := make(map[*typeMeta][]int, len(WireObjectTypes))
	for _, v := range readableVersions {
		for _, name := range v.types {
			t := v.metaOf(name)
			if _, done := all[t]; done || t == nil {
				continue
			}
			at := make([]int, 0, len(t.required))
			for _, r := range t.required {
				for i := range t.fields {
					if t.fields[i].name == r {
						at = append(at, i)
						break
					}
				}
			}
			if len(at) == len(t.required) {
				all[t] = at
			}
		}
	}
	return all
})

// maxIndexedFields is the field count up to which checkObject finds the members of an object in
// one pass over its names (a table on the stack) instead of one search per required member, per
// name and per field.
const maxIndexedFields = 48

// checkObject validates n against an object type of version v (whose metadata resolves the object
// types of its fields); the first issue wins. path holds the location of n (reused as a stack: a
// pointer string is built only for the issue found).
func checkObject(v *versionRules, t *typeMeta, n *node, path *[]slot) *Issue {
	if n.kind != kindObject {
		return schemaIssue(RuleSchemaType, slotsPointer(*path), "must be object")
	}
	required, indexed := requiredFields()[t]
	if !indexed || len(t.fields) > maxIndexedFields {
		return checkMembersByName(v, t, n, path)
	}
	// member[i] is 1 + the position in n of the member t.fields[i] names, 0 when n lacks it
	// (names are unique in a tree: the parser refuses duplicates, the encoders write each once).
	var member [maxIndexedFields]int32
	unknown := false
	for k, name := range n.keys {
		if i := t.fieldIndex(name); i >= 0 {
			member[i] = int32(k + 1)
		} else {
			unknown = true
		}
	}
	for j, i := range required {
		if member[i] == 0 {
			name := t.required[j]
			return schemaIssue(RuleSchemaRequired, childPointer(slotsPointer(*path), name), fmt.Sprintf("missing required member `%s`", name))
		}
	}
	if unknown {
		if issue := unknownMemberIssue(t, n, path); issue != nil {
			return issue
		}
	}
	for i := range t.fields {
		if k := member[i]; k > 0 {
			f := &t.fields[i]
			*path = append(*path, slot{key: f.name})
			if issue := checkValue(v, &f.shape, f.nullable, n.values[k-1], path); issue != nil {
				return issue
			}
			*path = (*path)[:len(*path)-1]
		}
	}
	return nil
}

// fieldIndex is the index of the field named name in t.fields, -1 when t declares none.
func (t *typeMeta) fieldIndex(name string) int {
	for i := range t.fields {
		if t.fields[i].name == name {
			return i
		}
	}
	return -1
}

// unknownMemberIssue is the schema.additional-properties issue of the first member of n, in
// JavaScript property order, that t does not declare; nil when there is none.
func unknownMemberIssue(t *typeMeta, n *node, path *[]slot) *Issue {
	for _, name := range jsOrder(n.keys) {
		if t.field(name) == nil {
			return schemaIssue(RuleSchemaAdditionalProperties, childPointer(slotsPointer(*path), name), fmt.Sprintf("unknown member `%s` (the object is closed)", name))
		}
	}
	return nil
}

// checkMembersByName is checkObject after its type check, searching n's members by name: the same
// verdict, for a type checkObject has no table for.
func checkMembersByName(v *versionRules, t *typeMeta, n *node, path *[]slot) *Issue {
	for _, name := range t.required {
		if _, ok := n.get(name); !ok {
			return schemaIssue(RuleSchemaRequired, childPointer(slotsPointer(*path), name), fmt.Sprintf("missing required member `%s`", name))
		}
	}
	// With no more (distinct) members than required ones, all found above, none can be unknown.
	if len(n.keys) > len(t.required) {
		if issue := unknownMemberIssue(t, n, path); issue != nil {
			return issue
		}
	}
	for i := range t.fields {
		f := &t.fields[i]
		if value, ok := n.get(f.name); ok {
			*path = append(*path, slot{key: f.name})
			if issue := checkValue(v, &f.shape, f.nullable, value, path); issue != nil {
				return issue
			}
			*path = (*path)[:len(*path)-1]
		}
	}
	return nil
}

// typeWord is the JSON Schema type name of a shape (for messages).
func typeWord(s *shape) string {
	switch s.kind {
	case shapeString, shapeEnum:
		return "string"
	case shapeInteger:
		return "integer"
	case shapeArray:
		return "array"
	}
	return "object"
}

func typeMismatch(s *shape, nullable bool, pointer string) *Issue {
	word := typeWord(s)
	if nullable && s.kind != shapeEnum && s.kind != shapeObject {
		word += ",null"
	}
	return schemaIssue(RuleSchemaType, pointer, "must be "+word)
}

// checkValue validates one field value (of a type of version v).
func checkValue(v *versionRules, s *shape, nullable bool, n *node, path *[]slot) *Issue {
	if nullable && n.kind == kindNull {
		return nil
	}
	switch s.kind {
	case shapeString:
		if n.kind != kindString {
			return typeMismatch(s, nullable, slotsPointer(*path))
		}
		// A string of at most maxLength bytes has at most maxLength code points: no count needed.
		if len(n.str) > s.maxLength && utf8.RuneCountInString(n.str) > s.maxLength {
			return schemaIssue(RuleSchemaMaxLength, slotsPointer(*path), fmt.Sprintf("must NOT have more than %d characters", s.maxLength))
		}
	case shapeInteger:
		if n.kind != kindNumber || n.number != math.Trunc(n.number) {
			return typeMismatch(s, nullable, slotsPointer(*path))
		}
		if n.number > s.maximum {
			return schemaIssue(RuleSchemaMaximum, slotsPointer(*path), fmt.Sprintf("must be <= %s", strconv.FormatFloat(s.maximum, 'f', -1, 64)))
		}
		if n.number < s.minimum {
			return schemaIssue(RuleSchemaMinimum, slotsPointer(*path), fmt.Sprintf("must be >= %s", strconv.FormatFloat(s.minimum, 'f', -1, 64)))
		}
	case shapeEnum:
		if n.kind != kindString {
			return typeMismatch(s, nullable, slotsPointer(*path))
		}
		for _, value := range s.enum {
			if value == n.str {
				return nil
			}
		}
		quoted := make([]string, len(s.enum))
		for i, value := range s.enum {
			quoted[i] = strconv.Quote(value)
		}
		return schemaIssue(RuleSchemaEnum, slotsPointer(*path), "must be one of "+strings.Join(quoted, ", "))
	case shapeObject:
		return checkObject(v, v.metaOf(s.typeName), n, path)
	case shapeOpenObject:
		if n.kind != kindObject {
			return typeMismatch(s, nullable, slotsPointer(*path))
		}
	case shapeArray:
		if n.kind != kindArray {
			return typeMismatch(s, nullable, slotsPointer(*path))
		}
		if len(n.items) > s.maxItems {
			return schemaIssue(RuleSchemaMaxItems, slotsPointer(*path), fmt.Sprintf("must NOT have more than %d items", s.maxItems))
		}
		for i, item := range n.items {
			*path = append(*path, slot{array: true, index: i})
			if issue := checkValue(v, s.items, false, item, path); issue != nil {
				return issue
			}
			*path = (*path)[:len(*path)-1]
		}
	}
	return nil
}

// integerLexemeIssue finds, in document order, the first number written with a fraction, an
// exponent or as -0 in an integer field (outside open maps) of a type t of version v. The schema
// layer has accepted n.
func integerLexemeIssue(v *versionRules, t *typeMeta, n *node, pointer string) *Issue {
	for i, name := range n.keys {
		f := t.field(name)
		if f == nil {
			continue
		}
		if issue := integerLexemeIn(v, &f.shape, n.values[i], childPointer(pointer, name)); issue != nil {
			return issue
		}
	}
	return nil
}

func integerLexemeIn(v *versionRules, s *shape, n *node, pointer string) *Issue {
	switch {
	case s.kind == shapeInteger && n.kind == kindNumber && n.nonInteger:
		return schemaIssue(RuleSchemaType, pointer, "must be an integer written without fraction, exponent or minus zero")
	case s.kind == shapeObject && n.kind == kindObject:
		return integerLexemeIssue(v, v.metaOf(s.typeName), n, pointer)
	case s.kind == shapeArray && n.kind == kindArray:
		for i, item := range n.items {
			if issue := integerLexemeIn(v, s.items, item, pointer+"/"+strconv.Itoa(i)); issue != nil {
				return issue
			}
		}
	}
	return nil
}
