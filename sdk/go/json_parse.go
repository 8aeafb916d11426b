// Strict JSON, layer 2: the parser (json.* rules) that builds the node tree of json_node.go.
// Lexemes (literals, strings, numbers): json_lexemes.go; issue construction: json_parse_issues.go.
// TypeScript twin: runtime/wire/json/; Python twin: lifeloop_callback/strict_json.py.

package lifeloop

import (
	"fmt"
	"unicode/utf8"
)

// ---------------------------------------------------------------------------
// Parse layer (json.* rules). Rules max-bytes, bom and utf8 are checked in that order before
// anything is scanned; the others are found by one left-to-right scan that reports the problem
// occurring first in the input, then trailing-data. Same order and pointers as the TypeScript
// validator (runtime/wire/json/).
//
// A document of a known wire type is parsed along its schema (parseTyped): only the values the
// schema layer, the integer-lexeme check, the rules and the typed decoders look at become nodes.
// Open maps are built directly in their decoded form (map[string]any), and values the schema
// rejects by their JSON type alone, members the type does not declare and array elements past
// maxItems are checked for json.* problems but kept only as a node of their JSON type, so memory
// stays proportional to the input whatever those values hold. Numbers written with a fraction, an
// exponent or as -0 are counted only in integer fields.

// slot is the position being parsed in one open container.
type slot struct {
	// array tells whether the container is an array (index) or an object (key).
	array bool
	// index is the current element of an array.
	index int
	// key is the (unescaped) name of the current member of an object.
	key string
}

// parser is the state of one strict parse.
type parser struct {
	src      []byte
	pos      int
	maxDepth int
	// values counts the values begun so far; maxValues bounds it (0: no bound).
	values    int
	maxValues int
	// maxMembers bounds the members of any one object (0: no bound).
	maxMembers int
	// depth is the number of open containers.
	depth int
	// slots[k] is the current slot of the container at depth k+1; pointers are built from them
	// only when an issue is reported.
	slots []slot
	issue *Issue
	// nonInteger counts numbers written with a fraction, an exponent or as -0: every one (generic
	// parse) or those in integer fields (typed parse).
	nonInteger int
	// typed is set for parseTyped (a schema guides the parse).
	typed bool
	// metaOf gives the metadata of the object types of a typed parse: nil for current's
	// (typeMetaOf), a version's own when its shapes differ (parseIn).
	metaOf func(string) *typeMeta
	// mem is where the tree's nodes and member slices are cut from.
	mem nodeArena
	// text is src as one string, made by the first substring (see substring).
	text string
	// field is the index in its type's fields of the member name memberName returned last, -1
	// when that name was not matched as a declared one (object then looks it up by name).
	field int
}

// sharedTextBytes is the size up to which a document's strings are cut from one copy of the whole
// document (see substring): one allocation per document instead of one per string, and a string
// the caller keeps keeps at most this many bytes alive.
const sharedTextBytes = 4096

// substring is src[from:to] as a string.
func (p *parser) substring(from, to int) string {
	if len(p.src) > sharedTextBytes {
		return string(p.src[from:to])
	}
	if p.text == "" {
		p.text = string(p.src)
	}
	return p.text[from:to]
}

// parseDocument strictly parses one document into generic nodes (every value a node, every
// non-integer number counted). It never panics on any input.
func parseDocument(data []byte, limits DocumentLimits) (*node, int, *Issue) {
	return parse(data, limits, nil)
}

// parseTyped strictly parses one document of the wire object type t (see the section comment):
// the json.* issue is the one parseDocument reports, and the tree is all the schema layer, the
// rules and the decoders of t need. The count is of non-integer numbers in integer fields.
func parseTyped(data []byte, limits DocumentLimits, t *typeMeta) (*node, int, *Issue) {
	return parse(data, limits, &shape{kind: shapeObject, typeName: t.name})
}

// parseIn is parseTyped of a document of the object type typeName of a wire version whose metadata
// metaOf gives (window.go: a version whose shapes differ from current's). The json.* issue is the
// same whatever schema guides the parse; only the tree differs.
func parseIn(data []byte, limits DocumentLimits, typeName string, metaOf func(string) *typeMeta) (*node, int, *Issue) {
	p, issue := newParser(data, limits, true)
	if issue != nil {
		return nil, 0, issue
	}
	p.metaOf = metaOf
	return p.finish(p.value(false, &shape{kind: shapeObject, typeName: typeName}))
}

// parse is parseDocument (root == nil) or parseTyped (root is the shape of the document).
func parse(data []byte, limits DocumentLimits, root *shape) (*node, int, *Issue) {
	p, issue := newParser(data, limits, root != nil)
	if issue != nil {
		return nil, 0, issue
	}
	return p.finish(p.value(false, root))
}

// objectMeta is the metadata of the object type name in the parse's schemas.
func (p *parser) objectMeta(name string) *typeMeta {
	if p.metaOf != nil {
		return p.metaOf(name)
	}
	return typeMetaOf(name)
}

// newParser checks the rules judged before anything is scanned (json.max-bytes, json.bom,
// json.utf8, in that order) and returns a parser at the start of data, or the first issue.
func newParser(data []byte, limits DocumentLimits, typed bool) (*parser, *Issue) {
	p := &parser{}
	if issue := p.begin(data, limits, typed); issue != nil {
		return nil, issue
	}
	return p, nil
}

// begin is newParser on p: it sets p to parse data from its start, keeping the memory of p's last
// parse (mem and slots: see nodeArena), or returns the first issue of the rules checked first.
func (p *parser) begin(data []byte, limits DocumentLimits, typed bool) *Issue {
	if len(data) > limits.MaxBytes {
		return &Issue{Rule: RuleJSONMaxBytes, Pointer: "", Message: fmt.Sprintf("document is %d bytes, which exceeds the limit of %d bytes", len(data), limits.MaxBytes)}
	}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return &Issue{Rule: RuleJSONBOM, Pointer: "", Message: "document starts with a UTF-8 byte-order mark (EF BB BF) at byte 0; JSON on the wire must not have a BOM"}
	}
	if !utf8.Valid(data) {
		at := firstInvalidUTF8(data)
		end := at + 4
		if end > len(data) {
			end = len(data)
		}
		return &Issue{Rule: RuleJSONUTF8, Pointer: "", Message: fmt.Sprintf("invalid UTF-8 at byte %d (bytes % X)", at, data[at:end])}
	}
	slots := p.slots[:0]
	if slots == nil {
		slots = make([]slot, 0, 8)
	}
	*p = parser{src: data, maxDepth: limits.MaxDepth, maxValues: limits.MaxValues, maxMembers: limits.MaxMembers, typed: typed, slots: slots, mem: p.mem}
	return nil
}

// finish ends a parse whose top-level value is n: the issue recorded, else json.trailing-data
// (or non-JSON whitespace) when anything but JSON whitespace follows n, else n and the count of
// non-integer numbers.
func (p *parser) finish(n *node) (*node, int, *Issue) {
	if p.issue != nil {
		return nil, 0, p.issue
	}
	p.skipWS()
	if p.pos < len(p.src) {
		if r, _ := utf8.DecodeRune(p.src[p.pos:]); isNonJSONWhitespace(r) {
			p.nonJSONWhitespace(r, "")
			return nil, 0, p.issue
		}
		p.fail(RuleJSONTrailingData, "", fmt.Sprintf("unexpected data after the top-level JSON value at byte %d (only whitespace may follow it), %s", p.pos, p.preview(p.pos)))
		return nil, 0, p.issue
	}
	return n, p.nonInteger, nil
}

// peek returns the byte at the cursor, or -1 at the end of input.
func (p *parser) peek() int {
	if p.pos >= len(p.src) {
		return -1
	}
	return int(p.src[p.pos])
}

func (p *parser) skipWS() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// enter opens a container (its first slot is element 0 or an unnamed member).
func (p *parser) enter(array bool) {
	p.depth++
	if len(p.slots) < p.depth {
		p.slots = append(p.slots, slot{array: array})
	} else {
		p.slots[p.depth-1] = slot{array: array}
	}
}

// value parses one value at the cursor (after optional whitespace) into a node. s is the shape the
// schema expects there (nil: no schema, every value becomes a node; see the section comment).
func (p *parser) value(afterComma bool, s *shape) *node {
	p.skipWS()
	if !p.countValue(p.peek()) {
		return nil
	}
	switch c := p.peek(); {
	case c == '"':
		var str string
		var ok bool
		if s != nil && s.kind == shapeEnum {
			str, ok = p.enumString(s.enum)
		} else {
			str, ok = p.stringLiteral(false)
		}
		if !ok {
			return nil
		}
		n := p.newNode(kindString)
		n.str = str
		return n
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(s == nil || s.kind == shapeInteger)
	case c == '{':
		switch {
		case s == nil:
			return p.object(nil)
		case s.kind == shapeObject:
			return p.object(p.objectMeta(s.typeName))
		case s.kind == shapeOpenObject:
			m, ok := p.anyObject()
			if !ok {
				return nil
			}
			n := p.newNode(kindObject)
			n.open = m
			return n
		}
		return p.skip(false)
	case c == '[':
		if s == nil || s.kind == shapeArray {
			return p.array(s)
		}
		return p.skip(false)
	case c == 't' || c == 'f' || c == 'n':
		var v any
		if !p.literal(&v) {
			return nil
		}
		if v == nil {
			return p.newNode(kindNull)
		}
		n := p.newNode(kindBool)
		n.boolean = v.(bool)
		return n
	}
	return p.unexpectedValue(afterComma)
}

// skip parses the value at the cursor for json.* problems only and returns a node of its JSON type
// without its content: for values the schema layer judges by their place or type alone.
func (p *parser) skip(afterComma bool) *node {
	v, ok := p.anyValue(afterComma)
	if !ok {
		return nil
	}
	switch v.(type) {
	case nil:
		return p.newNode(kindNull)
	case bool:
		return p.newNode(kindBool)
	case float64:
		return p.newNode(kindNumber)
	case string:
		return p.newNode(kindString)
	case []any:
		return p.newNode(kindArray)
	}
	return p.newNode(kindObject)
}

// countValue counts the value starting with c (a string, number or container; a literal is counted
// by literal once it is whole, as in every binding). It returns false, with json.max-values
// recorded, once there are more values than maxValues.
func (p *parser) countValue(c int) bool {
	switch {
	case c == '"' || c == '-' || (c >= '0' && c <= '9') || c == '{' || c == '[':
		return p.countOne()
	}
	return true
}

func (p *parser) countOne() bool {
	p.values++
	if p.maxValues > 0 && p.values > p.maxValues {
		p.fail(RuleJSONMaxValues, p.slotPointer(), fmt.Sprintf("value number %d at byte %d exceeds the limit of %d values per document", p.values, p.pos, p.maxValues))
		return false
	}
	return true
}

func (p *parser) openContainer() bool {
	if p.depth >= p.maxDepth {
		p.fail(RuleJSONMaxDepth, p.slotPointer(), fmt.Sprintf("nesting depth %d at byte %d exceeds the limit of %d", p.depth+1, p.pos, p.maxDepth))
		return false
	}
	return true
}

// elements parses the array at the cursor, calling element with the cursor before each element.
// It returns false once an issue is recorded.
func (p *parser) elements(element func(afterComma bool) bool) bool {
	if !p.openContainer() {
		return false
	}
	p.enter(true)
	p.pos++
	p.skipWS()
	if p.peek() == ']' {
		p.pos++
		p.depth--
		return true
	}
	afterComma := false
	for {
		if !element(afterComma) {
			return false
		}
		p.skipWS()
		switch p.peek() {
		case ',':
			p.pos++
			p.slots[p.depth-1].index++
			afterComma = true
		case ']':
			p.pos++
			p.depth--
			return true
		default:
			p.unexpectedStructural("',' or ']' after array element", p.containerPointer())
			return false
		}
	}
}

// members parses the object at the cursor. For each member it counts the name (json.max-members
// past maxMembers, before the name is compared), asks taken whether the name was already seen
// (json.duplicate-key), then calls member with the cursor before the value. It returns false once
// an issue is recorded.
func (p *parser) members(names *typeMeta, taken func(key string) bool, member func(key string) bool) bool {
	if !p.openContainer() {
		return false
	}
	p.enter(false)
	p.pos++
	p.skipWS()
	if p.peek() == '}' {
		p.pos++
		p.depth--
		return true
	}
	count := 0
	for {
		if c := p.peek(); c != '"' {
			switch c {
			case '\'':
				p.syntax(p.containerPointer(), fmt.Sprintf("single-quoted member names are not allowed at byte %d, %s", p.pos, p.preview(p.pos)))
			case '}':
				p.syntax(p.containerPointer(), fmt.Sprintf("trailing comma before '}' at byte %d, %s", p.pos, p.preview(p.pos)))
			default:
				p.unexpectedStructural("a double-quoted member name", p.containerPointer())
			}
			return false
		}
		at := p.pos
		key, ok := p.memberName(names)
		if !ok {
			return false
		}
		p.slots[p.depth-1].key = key
		count++
		if p.maxMembers > 0 && count > p.maxMembers {
			p.fail(RuleJSONMaxMembers, p.slotPointer(), fmt.Sprintf("member number %d at byte %d exceeds the limit of %d members per object", count, at, p.maxMembers))
			return false
		}
		if taken(key) {
			p.fail(RuleJSONDuplicateKey, p.slotPointer(), fmt.Sprintf("duplicate member name %s at byte %d (each name may appear only once per object)", quoteKey(key), at))
			return false
		}
		p.skipWS()
		if p.peek() != ':' {
			p.unexpectedStructural("':' after member name", p.slotPointer())
			return false
		}
		p.pos++
		if !member(key) {
			return false
		}
		p.skipWS()
		switch p.peek() {
		case ',':
			p.pos++
			p.skipWS()
		case '}':
			p.pos++
			p.depth--
			return true
		default:
			p.unexpectedStructural("',' or '}' after object member", p.containerPointer())
			return false
		}
	}
}

// array parses an array into a node; s is its shape (nil: generic). A typed array keeps at most
// maxItems+1 elements: one more is all the schema layer needs to report schema.max-items.
func (p *parser) array(s *shape) *node {
	n := p.newNode(kindArray)
	var items *shape
	if s != nil {
		items = s.items
	}
	ok := p.elements(func(afterComma bool) bool {
		if s != nil && len(n.items) > s.maxItems {
			return p.skip(afterComma) != nil
		}
		item := p.value(afterComma, items)
		if item == nil {
			return false
		}
		n.items = append(n.items, item)
		return true
	})
	if !ok {
		return nil
	}
	return n
}

// object parses an object into a node; t is its type (nil: generic). Members t does not declare
// are kept as nodes of their JSON type only (the schema layer reports them by name).
func (p *parser) object(t *typeMeta) *node {
	n := p.newNode(kindObject)
	if t != nil {
		// Room for every declared member at once (appending from empty would allocate 4 or 5
		// times for a large type); undeclared members, if any, grow it as usual.
		n.keys, n.values = p.memberSlices(len(t.fields))
	}
	ok := p.members(t, func(key string) bool {
		_, dup := n.get(key)
		return dup
	}, func(key string) bool {
		var v *node
		if t == nil {
			v = p.value(false, nil)
		} else if k := p.field; k >= 0 {
			v = p.value(false, &t.fields[k].shape) // the field memberName matched key with
		} else if f := t.field(key); f != nil {
			v = p.value(false, &f.shape)
		} else {
			v = p.skip(false)
		}
		if v == nil {
			return false
		}
		n.add(key, v)
		return true
	})
	if !ok {
		return nil
	}
	return n
}

// anyValue parses one value at the cursor into the encoding/json form: nil, bool, float64, string,
// []any or map[string]any (the form of open maps).
func (p *parser) anyValue(afterComma bool) (any, bool) {
	p.skipWS()
	if !p.countValue(p.peek()) {
		return nil, false
	}
	switch c := p.peek(); {
	case c == '"':
		return p.stringLiteral(false)
	case c == '-' || (c >= '0' && c <= '9'):
		f, _, ok := p.scanNumber()
		if !ok {
			return nil, false
		}
		return boxNumber(f), true
	case c == '{':
		return p.anyObject()
	case c == '[':
		var out []any
		counted := false
		ok := p.elements(func(afterComma bool) bool {
			if len(out) == cap(out) && len(out) >= countAfter && !counted {
				// A large array: allocate the rest once instead of copying it as it grows.
				counted = true
				rest := p.countElements(p.pos)
				if p.maxValues > 0 && rest > p.maxValues-p.values {
					// Never allocate for more values than the document may hold.
					rest = p.maxValues - p.values
				}
				grown := make([]any, len(out), len(out)+rest)
				copy(grown, out)
				out = grown
			}
			v, ok := p.anyValue(afterComma)
			out = append(out, v)
			return ok
		})
		if out == nil {
			out = []any{}
		}
		return out, ok
	case c == 't' || c == 'f' || c == 'n':
		var v any
		return v, p.literal(&v)
	}
	p.unexpectedValue(afterComma)
	return nil, false
}

// countAfter is the length from which anyValue counts the rest of an array before growing it.
const countAfter = 256

// countElements counts the elements from offset from to the end of the array that holds it,
// skipping strings and nested containers: the capacity for the rest of a large []any, so that it
// is allocated once rather than copied as it grows. Exact for well-formed input, a hint otherwise.
func (p *parser) countElements(from int) int {
	src := p.src
	depth, count, empty := 0, 0, true
	for i := from; i < len(src); i++ {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			empty = false
		case '[', '{':
			depth++
			empty = false
		case ']', '}':
			if depth == 0 {
				if empty {
					return 0
				}
				return count + 1
			}
			depth--
		case ',':
			if depth == 0 {
				count++
			}
		default:
			empty = false
		}
	}
	return 0
}

// anyObject parses an object into a map (see anyValue).
func (p *parser) anyObject() (map[string]any, bool) {
	out := map[string]any{}
	ok := p.members(nil, func(key string) bool {
		_, dup := out[key]
		return dup
	}, func(key string) bool {
		v, ok := p.anyValue(false)
		out[key] = v
		return ok
	})
	return out, ok
}
