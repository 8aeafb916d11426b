package lifeloop

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

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
// with a required member it does not declare has none (checkObject then searches by name).
var requiredFields = sync.OnceValue(func() map[*typeMeta][]int {
	all := make(map[*typeMeta][]int, len(WireObjectTypes))
	for _, name := range WireObjectTypes {
		t := typeMetaOf(name)
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
	return all
})

// maxIndexedFields is the field count up to which checkObject finds the members of an object in
// one pass over its names (a table on the stack) instead of one search per required member, per
// name and per field.
const maxIndexedFields = 48

// checkObject validates n against an object type; the first issue wins. path holds the location
// of n (reused as a stack: a pointer string is built only for the issue found).
func checkObject(t *typeMeta, n *node, path *[]slot) *Issue {
	if n.kind != kindObject {
		return schemaIssue(RuleSchemaType, slotsPointer(*path), "must be object")
	}
	required, indexed := requiredFields()[t]
	if !indexed || len(t.fields) > maxIndexedFields {
		return checkMembersByName(t, n, path)
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
			if issue := checkValue(&f.shape, f.nullable, n.values[k-1], path); issue != nil {
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
func checkMembersByName(t *typeMeta, n *node, path *[]slot) *Issue {
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
		if v, ok := n.get(f.name); ok {
			*path = append(*path, slot{key: f.name})
			if issue := checkValue(&f.shape, f.nullable, v, path); issue != nil {
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

// checkValue validates one field value.
func checkValue(s *shape, nullable bool, n *node, path *[]slot) *Issue {
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
		for _, v := range s.enum {
			if v == n.str {
				return nil
			}
		}
		quoted := make([]string, len(s.enum))
		for i, v := range s.enum {
			quoted[i] = strconv.Quote(v)
		}
		return schemaIssue(RuleSchemaEnum, slotsPointer(*path), "must be one of "+strings.Join(quoted, ", "))
	case shapeObject:
		return checkObject(typeMetaOf(s.typeName), n, path)
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
			if issue := checkValue(s.items, false, item, path); issue != nil {
				return issue
			}
			*path = (*path)[:len(*path)-1]
		}
	}
	return nil
}

// integerLexemeIssue finds, in document order, the first number written with a fraction, an
// exponent or as -0 in an integer field (outside open maps). The schema layer has accepted n.
func integerLexemeIssue(t *typeMeta, n *node, pointer string) *Issue {
	for i, name := range n.keys {
		f := t.field(name)
		if f == nil {
			continue
		}
		if issue := integerLexemeIn(&f.shape, n.values[i], childPointer(pointer, name)); issue != nil {
			return issue
		}
	}
	return nil
}

func integerLexemeIn(s *shape, n *node, pointer string) *Issue {
	switch {
	case s.kind == shapeInteger && n.kind == kindNumber && n.nonInteger:
		return schemaIssue(RuleSchemaType, pointer, "must be an integer written without fraction, exponent or minus zero")
	case s.kind == shapeObject && n.kind == kindObject:
		return integerLexemeIssue(typeMetaOf(s.typeName), n, pointer)
	case s.kind == shapeArray && n.kind == kindArray:
		for i, item := range n.items {
			if issue := integerLexemeIn(s.items, item, pointer+"/"+strconv.Itoa(i)); issue != nil {
				return issue
			}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Rules layer: the generated rule plans (wire_rules.go, from spec/tables/rules.json) interpreted
// with the semantics of runtime/wire/rules.ts. A field is present when its member exists and is
// not null.

// ruleCheck is the check vocabulary of spec/tables/rules.json.
type ruleCheck uint8

const (
	checkEqualsWireVersion ruleCheck = iota + 1
	checkNonEmptyString
	checkRequiredWhen
	checkForbiddenWhen
	checkForbiddenValue
	checkExactlyOnePresent
	checkUTF8ByteLengthEquals
	checkNonEmptyArray
	checkFieldsDiffer
)

// ruleCondition is a resolved `when` clause: the member `field` is (or, with notIn, is not) one of values.
type ruleCondition struct {
	field  string
	notIn  bool
	values []string
}

// ruleStep applies one rule to every object matching the pointer pattern `at`, given as its
// reference tokens (`*` = any index; no tokens = the root).
type ruleStep struct {
	rule        string
	check       ruleCheck
	at          []string
	field       string
	fields      []string
	each        bool
	lengthField string
	when        *ruleCondition
	values      []string
	expected    string
	message     string
}

// patternWalk visits, in document order, every object of a tree that matches a rule step's
// pattern tokens (`*` = any array index) and runs the step on it. path holds the unescaped
// reference tokens of the current location (reused; rendered only for an issue).
type patternWalk struct {
	step *ruleStep
	path []string
	out  []Issue
}

func (w *patternWalk) walk(n *node, i int) {
	tokens := w.step.at
	if i == len(tokens) {
		if n.kind == kindObject {
			w.out = w.step.run(w.path, n, w.out)
		}
		return
	}
	if tokens[i] == "*" {
		if n.kind != kindArray {
			return
		}
		for k, item := range n.items {
			w.path = append(w.path, strconv.Itoa(k))
			w.walk(item, i+1)
			w.path = w.path[:len(w.path)-1]
		}
		return
	}
	if n.kind != kindObject {
		return
	}
	if child, ok := n.get(tokens[i]); ok {
		w.path = append(w.path, tokens[i])
		w.walk(child, i+1)
		w.path = w.path[:len(w.path)-1]
	}
}

// joinPath renders unescaped reference tokens as a JSON pointer.
func joinPath(path []string) string {
	if len(path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, token := range path {
		b.WriteByte('/')
		b.WriteString(escapeToken(token))
	}
	return b.String()
}

func presentIn(n *node, field string) bool {
	v, ok := n.get(field)
	return ok && v.kind != kindNull
}

func stringMember(n *node, field string) (string, bool) {
	v, ok := n.get(field)
	if !ok || v.kind != kindString {
		return "", false
	}
	return v.str, true
}

func contains(values []string, v string) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}

func (s *ruleStep) conditionHolds(n *node) bool {
	if s.when == nil {
		return true
	}
	v, ok := stringMember(n, s.when.field)
	if !ok {
		return false
	}
	return contains(s.when.values, v) != s.when.notIn
}

// formatMessage fills {name} placeholders of a rule message.
func formatMessage(template string, vars map[string]string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(template[open:], '}')
		if end < 0 {
			break
		}
		name := template[open+1 : open+end]
		b.WriteString(template[:open])
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(template[open : open+end+1])
		}
		template = template[open+end+1:]
	}
	b.WriteString(template)
	return b.String()
}

// run evaluates the step on one object and appends its issues.
func (s *ruleStep) run(path []string, n *node, out []Issue) []Issue {
	issue := func(at string, extra ...string) []Issue {
		return append(out, s.issue(joinPath(path), n, at, extra...))
	}
	fieldIssue := func(extra ...string) []Issue {
		return issue(childPointer(joinPath(path), s.field), extra...)
	}
	switch s.check {
	case checkEqualsWireVersion:
		if v, ok := stringMember(n, s.field); ok && v != s.expected {
			return fieldIssue("value", v)
		}
	case checkNonEmptyString:
		v, ok := n.get(s.field)
		switch {
		case !ok:
		case s.each && v.kind == kindArray:
			for i, item := range v.items {
				if item.kind == kindString && item.str == "" {
					at := childPointer(joinPath(path), s.field) + "/" + strconv.Itoa(i)
					out = issue(at, "field", at)
				}
			}
		case !s.each && v.kind == kindString && v.str == "":
			return fieldIssue()
		}
	case checkRequiredWhen:
		if s.conditionHolds(n) && !presentIn(n, s.field) {
			return fieldIssue()
		}
	case checkForbiddenWhen:
		if s.conditionHolds(n) && presentIn(n, s.field) {
			return fieldIssue()
		}
	case checkForbiddenValue:
		if v, ok := stringMember(n, s.field); ok && contains(s.values, v) {
			return fieldIssue("value", v)
		}
	case checkExactlyOnePresent:
		present, second := 0, ""
		for _, f := range s.fields {
			if presentIn(n, f) {
				present++
				if present == 2 {
					second = f
				}
			}
		}
		if present == 0 {
			return issue(joinPath(path))
		}
		if present > 1 {
			return issue(childPointer(joinPath(path), second))
		}
	case checkUTF8ByteLengthEquals:
		body, ok := stringMember(n, s.field)
		declared, found := n.get(s.lengthField)
		if ok && found && declared.kind == kindNumber && float64(len(body)) != declared.number {
			return fieldIssue("actual", strconv.Itoa(len(body)), "expected", displayValue(declared))
		}
	case checkNonEmptyArray:
		if v, ok := n.get(s.field); ok && v.kind == kindArray && len(v.items) == 0 {
			return fieldIssue()
		}
	case checkFieldsDiffer:
		// The first field whose string value repeats an earlier field's (absent, null and
		// non-string members take part in no comparison).
		for i := 1; i < len(s.fields); i++ {
			later, ok := stringMember(n, s.fields[i])
			if !ok {
				continue
			}
			for _, f := range s.fields[:i] {
				if earlier, found := stringMember(n, f); found && earlier == later {
					at := childPointer(joinPath(path), s.fields[i])
					return issue(at, "field", at)
				}
			}
		}
	}
	return out
}

// issue builds the Issue of the step at pointer at; extra holds name/value pairs for the message.
func (s *ruleStep) issue(pointer string, n *node, at string, extra ...string) Issue {
	whenValue := ""
	if s.when != nil {
		whenValue = "undefined"
		if v, ok := n.get(s.when.field); ok {
			whenValue = displayValue(v)
		}
	}
	vars := map[string]string{"field": childPointer(pointer, s.field), "when_value": whenValue, "expected": s.expected}
	for i := 0; i+1 < len(extra); i += 2 {
		vars[extra[i]] = extra[i+1]
	}
	return Issue{Rule: s.rule, Pointer: at, Message: formatMessage(s.message, vars)}
}

// displayValue renders a member value the way JavaScript's String() does for messages.
func displayValue(n *node) string {
	switch n.kind {
	case kindString:
		return n.str
	case kindNull:
		return "null"
	case kindBool:
		return strconv.FormatBool(n.boolean)
	case kindNumber:
		return strconv.FormatFloat(n.number, 'f', -1, 64)
	case kindArray:
		return "[array]"
	}
	return "[object Object]"
}

// evaluateRules runs every rule step of a type against a value the schema layer accepted, in plan
// order, with the same issues in the same order as walking every step's pattern from the root:
//   - steps whose pattern starts with a member the root lacks are skipped without reading them
//     (most of a plan is about optional arrays, such as payloads, that most documents lack);
//   - a step whose pattern has no `*` matches at most one object, found once for a run of steps
//     with the same pattern (most steps of a type share a few).
func evaluateRules(typeName string, root *node) []Issue {
	plan, patterns := rulePlanOf(typeName), rulePatterns()[typeName]
	if len(patterns) != len(plan) { // a type outside WireObjectTypes
		patterns = patternsOf(plan)
	}
	var w patternWalk // its path grows only where a walk descends
	var target, under *node
	below := ""
	for i := range patterns {
		p := &patterns[i]
		if p.first != "" && p.first != "*" {
			if p.first != below {
				below, under = p.first, nil
				if v, ok := root.get(p.first); ok {
					under = v
				}
			}
			if under == nil {
				if !p.wildcard {
					target = nil // its object, none: so for the next steps of the same pattern
				}
				continue
			}
		}
		step := &plan[i]
		switch {
		case p.wildcard:
			w.step = step
			w.walk(root, 0)
		case !p.same:
			target = objectAt(root, step.at)
			fallthrough
		default:
			if target != nil {
				w.out = step.run(step.at, target, w.out)
			}
		}
	}
	return w.out
}

// stepPattern says how evaluateRules finds the objects of one rule step, in a few bytes so that a
// plan is skimmed without reading its steps: by the pattern's first reference token (first; ""
// for the root), then by a walk (wildcard: the pattern has a `*`) or as the object of the last
// step without one (same: the same pattern) or anew.
type stepPattern struct {
	first          string
	wildcard, same bool
}

// rulePatterns is the stepPattern of every step of every wire type's rule plan, by type name,
// worked out once.
var rulePatterns = sync.OnceValue(func() map[string][]stepPattern {
	all := make(map[string][]stepPattern, len(WireObjectTypes))
	for _, name := range WireObjectTypes {
		all[name] = patternsOf(rulePlanOf(name))
	}
	return all
})

// patternsOf is the stepPattern of every step of plan.
func patternsOf(plan []ruleStep) []stepPattern {
	patterns := make([]stepPattern, len(plan))
	var last []string
	for i := range plan {
		at := plan[i].at
		if len(at) > 0 {
			patterns[i].first = at[0]
		}
		if slices.Contains(at, "*") {
			patterns[i].wildcard = true
			continue
		}
		patterns[i].same = last != nil && slices.Equal(at, last)
		if last = at; last == nil {
			last = []string{} // the root, equal to a later root pattern
		}
	}
	return patterns
}

// objectAt is the object at the reference tokens path (no `*`) below n, or nil when there is none.
func objectAt(n *node, path []string) *node {
	for _, token := range path {
		if n.kind != kindObject {
			return nil
		}
		child, ok := n.get(token)
		if !ok {
			return nil
		}
		n = child
	}
	if n.kind != kindObject {
		return nil
	}
	return n
}

// ---------------------------------------------------------------------------
// Whole documents.

// paths holds the location stacks of the document walks (checkObject, appendChecked): a walk
// writes its stack through a pointer, so the stack cannot live on the walk's own Go stack, and a
// document checked or encoded per event would otherwise allocate one (8 slots, 256 bytes) per walk.
var paths = sync.Pool{New: func() any { p := make([]slot, 0, 8); return &p }}

// maxPooledPathSlots bounds the stacks kept in paths (a deeper document's is left to the collector).
const maxPooledPathSlots = 64

// getPath returns an empty location stack from paths; give it back with putPath.
func getPath() *[]slot { return paths.Get().(*[]slot) }

// putPath empties path (it holds member names of the document walked) and returns it to paths.
func putPath(path *[]slot) {
	if cap(*path) > maxPooledPathSlots {
		return
	}
	clear((*path)[:cap(*path)])
	*path = (*path)[:0]
	paths.Put(path)
}

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
