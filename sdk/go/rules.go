// The rules layer: the interpreter of the rule plans of spec/tables/rules.json (generated into
// zz_wire_meta.go). TypeScript twin: runtime/wire/rules.ts.

package lifeloop

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ---------------------------------------------------------------------------
// Rules layer: the generated rule plans (zz_wire_meta.go, from spec/tables/rules.json; an older
// version's in zz_window.go, from its release snapshot) interpreted with the semantics of
// runtime/wire/rules.ts. A field is present when its member exists and is
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

// evaluateRules runs every rule step of a type of version v against a value the schema layer
// accepted, in plan order, with the same issues in the same order as walking every step's pattern
// from the root:
//   - steps whose pattern starts with a member the root lacks are skipped without reading them
//     (most of a plan is about optional arrays, such as payloads, that most documents lack);
//   - a step whose pattern has no `*` matches at most one object, found once for a run of steps
//     with the same pattern (most steps of a type share a few).
func evaluateRules(v *versionRules, typeName string, root *node) []Issue {
	plan, patterns := v.planOf(typeName), v.patterns()[typeName]
	if len(patterns) != len(plan) { // a type outside the version's types
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
