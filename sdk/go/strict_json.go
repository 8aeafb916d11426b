package lifeloop

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// DocumentLimits bounds one wire document (spec/tables/limits.json).
type DocumentLimits struct {
	// MaxBytes is the largest accepted input, in bytes (inclusive). A longer input is rule
	// json.max-bytes and is not decoded at all.
	MaxBytes int

	// MaxDepth is the deepest accepted nesting of arrays and objects (inclusive). The root container
	// is level 1; a scalar document is level 0. Deeper input is rule json.max-depth.
	MaxDepth int

	// MaxValues is the largest accepted number of JSON values (inclusive): every string, number,
	// literal, array and object, the root included (member names are not values). More is rule
	// json.max-values. Zero means no bound (for documents the SDK itself produced).
	MaxValues int

	// MaxMembers is the largest accepted number of members of any one object (inclusive): every
	// member name of the text counts, a repeated one too (the count is checked at each name, before
	// the name is compared with the object's earlier ones). More is rule json.max-members at the
	// first member past it. Zero means no bound (for documents the SDK itself produced).
	MaxMembers int
}

// DefaultDocumentLimits are limits.max_request_bytes (LimitMaxRequestBytes bytes), limits.max_depth
// (LimitMaxDepth levels), limits.max_values (LimitMaxValues values) and limits.max_object_members
// (LimitMaxObjectMembers members per object): the bounds every binding applies to a document read
// from a peer.
var DefaultDocumentLimits = DocumentLimits{MaxBytes: LimitMaxRequestBytes, MaxDepth: LimitMaxDepth, MaxValues: LimitMaxValues, MaxMembers: LimitMaxObjectMembers}

// nodeKind is the JSON type of a node.
type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is one JSON value of a strictly parsed (or encoded) document. Objects keep their members
// in document order; duplicate member names never reach a node.
type node struct {
	kind nodeKind
	// boolean is the value of a kindBool node.
	boolean bool
	// number is the value of a kindNumber node (IEEE-754 double, as every binding reads it).
	number float64
	// nonInteger is true for a number written with a fraction, an exponent or as -0.
	nonInteger bool
	// str is the value of a kindString node or the lexeme of a parsed kindNumber node.
	str string
	// items are the elements of a kindArray node.
	items []*node
	// keys and values are the members of a kindObject node, in order.
	keys   []string
	values []*node
	// index maps member names to positions once an object has more than linearKeyLimit members.
	index map[string]int
	// open holds an open map (keys and values stay empty): parsed by parseTyped, or the Go value
	// being encoded (see mapNode).
	open map[string]any
}

// linearKeyLimit is the member count up to which objects are searched linearly.
const linearKeyLimit = 16

// get returns the member named key of an object node.
func (n *node) get(key string) (*node, bool) {
	if n.index != nil {
		i, ok := n.index[key]
		if !ok {
			return nil, false
		}
		return n.values[i], true
	}
	for i, k := range n.keys {
		if k == key {
			return n.values[i], true
		}
	}
	return nil, false
}

// add appends a member to an object node (the caller guarantees the name is new).
func (n *node) add(key string, value *node) {
	n.keys = append(n.keys, key)
	n.values = append(n.values, value)
	if n.index != nil {
		n.index[key] = len(n.keys) - 1
	} else if len(n.keys) > linearKeyLimit {
		n.index = make(map[string]int, len(n.keys)*2)
		for i, k := range n.keys {
			n.index[k] = i
		}
	}
}

// escapeToken escapes one RFC 6901 reference token: "~" becomes "~0" and "/" becomes "~1".
func escapeToken(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// childPointer appends one (unescaped) token to a JSON pointer.
func childPointer(pointer, token string) string {
	return pointer + "/" + escapeToken(token)
}

// ---------------------------------------------------------------------------
// Parse layer (json.* rules). Rules max-bytes, bom and utf8 are checked in that order before
// anything is scanned; the others are found by one left-to-right scan that reports the problem
// occurring first in the input, then trailing-data. Same order and pointers as the TypeScript
// validator (runtime/wire/strict-json.ts).
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

// nodeArena is the memory a parse cuts its tree from. chunk is where newNode takes nodes from (one
// allocation per chunk instead of one per value); keys and values back the member slices of
// objects (see memberSlices). A reader that parses one document after another can keep the arena
// of the last parse and reset it for the next one once nothing points into the last tree: it then
// allocates nothing for the tree once it has seen its largest document (parseFrame).
type nodeArena struct {
	chunk  []node
	keys   []string
	values []*node
}

// reset empties the arena for the next parse: the nodes zeroed (newNode hands them out as they
// are), the member slices cleared so they keep no names or nodes alive. Memory the last parse
// outgrew (an earlier, smaller chunk) is left to the collector.
func (a *nodeArena) reset() {
	clear(a.chunk)
	clear(a.keys)
	clear(a.values)
	a.chunk, a.keys, a.values = a.chunk[:0], a.keys[:0], a.values[:0]
}

// Chunk sizes of newNode: the first chunks are small so a small document allocates little; later
// ones grow up to maxNodeChunk.
const (
	firstNodeChunk = 16
	maxNodeChunk   = 1024
)

// memberSlices returns empty keys and values slices with room for size members, cut from the
// parser's arenas (one allocation per arena instead of two per object). Their capacity ends at
// size, so appending more members reallocates instead of overwriting a neighbour.
func (p *parser) memberSlices(size int) ([]string, []*node) {
	m := &p.mem
	if cap(m.keys)-len(m.keys) < size {
		grown := 2 * cap(m.keys)
		if grown < 4*firstNodeChunk {
			grown = 4 * firstNodeChunk
		}
		if grown > maxNodeChunk {
			grown = maxNodeChunk
		}
		if grown < size {
			grown = size
		}
		m.keys = make([]string, 0, grown)
		m.values = make([]*node, 0, grown)
	}
	start, end := len(m.keys), len(m.keys)+size
	m.keys, m.values = m.keys[:end], m.values[:end]
	return m.keys[start:start:end], m.values[start:start:end]
}

// newNode returns a zeroed node from the parser's current chunk (a new chunk, twice the size of
// the last, when it is full). Nodes stay valid for as long as anything points to their chunk.
func (p *parser) newNode(kind nodeKind) *node {
	m := &p.mem
	if len(m.chunk) == cap(m.chunk) {
		size := 2 * cap(m.chunk)
		if size < firstNodeChunk {
			size = firstNodeChunk
		}
		if size > maxNodeChunk {
			size = maxNodeChunk
		}
		m.chunk = make([]node, 0, size)
	}
	m.chunk = m.chunk[:len(m.chunk)+1]
	n := &m.chunk[len(m.chunk)-1]
	n.kind = kind
	return n
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

// parse is parseDocument (root == nil) or parseTyped (root is the shape of the document).
func parse(data []byte, limits DocumentLimits, root *shape) (*node, int, *Issue) {
	p, issue := newParser(data, limits, root != nil)
	if issue != nil {
		return nil, 0, issue
	}
	return p.finish(p.value(false, root))
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

// firstInvalidUTF8 is the offset of the first byte at which data stops being well-formed UTF-8.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return 0
}

// fail records the first issue; it returns nil so callers can `return p.fail(...)`.
func (p *parser) fail(rule, pointer, message string) *node {
	if p.issue == nil {
		p.issue = &Issue{Rule: rule, Pointer: pointer, Message: message}
	}
	return nil
}

func (p *parser) syntax(pointer, message string) *node {
	return p.fail(RuleJSONSyntax, pointer, message)
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

// slotsPointer is the JSON pointer of a path of slots.
func slotsPointer(path []slot) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		if s.array {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(escapeToken(s.key))
		}
	}
	return b.String()
}

// pointerTo is the pointer of the current slots of the outermost depth containers.
func (p *parser) pointerTo(depth int) string {
	return slotsPointer(p.slots[:depth])
}

// containerPointer is the pointer of the innermost open container ("" for the root).
func (p *parser) containerPointer() string {
	if p.depth <= 1 {
		return ""
	}
	return p.pointerTo(p.depth - 1)
}

// slotPointer is the pointer of the value being parsed (the root, or the current element/member).
func (p *parser) slotPointer() string {
	return p.pointerTo(p.depth)
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

// preview is an escaped, quoted excerpt of at most 32 bytes of input from offset at.
func (p *parser) preview(at int) string {
	if at >= len(p.src) {
		return "at end of input"
	}
	end := at
	for end < len(p.src) && end-at < 32 {
		_, size := utf8.DecodeRune(p.src[end:])
		if end+size-at > 32 {
			break
		}
		end += size
	}
	quoted := strconv.QuoteToASCII(string(p.src[at:end]))
	if end < len(p.src) {
		return "near " + quoted[:len(quoted)-1] + `..."`
	}
	return "near " + quoted
}

// isNonJSONWhitespace reports Unicode whitespace that JSON does not allow between tokens.
func isNonJSONWhitespace(r rune) bool {
	switch {
	case r == 0x0B, r == 0x0C, r == 0x85, r == 0xA0, r == 0x1680:
		return true
	case r >= 0x2000 && r <= 0x200A:
		return true
	case r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000, r == 0xFEFF:
		return true
	}
	return false
}

func (p *parser) nonJSONWhitespace(r rune, pointer string) *node {
	return p.syntax(pointer, fmt.Sprintf("non-JSON whitespace U+%04X at byte %d (only space, tab, LF and CR are allowed), %s", r, p.pos, p.preview(p.pos)))
}

// describeChar names the character at the cursor for messages.
func (p *parser) describeChar() string {
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return fmt.Sprintf("%s (U+%04X)", strconv.QuoteRuneToASCII(r), r)
}

// unexpectedValue explains a character (or the end of input) where a value was expected.
func (p *parser) unexpectedValue(afterComma bool) *node {
	if strings.HasPrefix(string(p.src[p.pos:min(p.pos+8, len(p.src))]), "NaN") {
		return p.syntax(p.slotPointer(), fmt.Sprintf("NaN is not valid JSON at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	if strings.HasPrefix(string(p.src[p.pos:min(p.pos+8, len(p.src))]), "Infinity") {
		return p.syntax(p.slotPointer(), fmt.Sprintf("Infinity is not valid JSON at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	c := p.peek()
	ptr := p.slotPointer()
	if c < 0 {
		if p.depth == 0 {
			if p.pos == 0 {
				return p.syntax("", "empty document (no JSON value) at byte 0")
			}
			return p.syntax("", fmt.Sprintf("whitespace-only document (no JSON value) at byte %d, at end of input", p.pos))
		}
		return p.syntax(ptr, fmt.Sprintf("unterminated container: expected a value at byte %d, at end of input", p.pos))
	}
	if afterComma && c == ']' {
		return p.syntax(p.containerPointer(), fmt.Sprintf("trailing comma before ']' at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	switch c {
	case ']', '}', ',', ':':
		return p.syntax(ptr, fmt.Sprintf("expected a value but found '%c' at byte %d, %s", c, p.pos, p.preview(p.pos)))
	case '\'':
		return p.syntax(ptr, fmt.Sprintf("single-quoted strings are not allowed at byte %d, %s", p.pos, p.preview(p.pos)))
	case '/', '#':
		return p.syntax(ptr, fmt.Sprintf("comments are not allowed at byte %d, %s", p.pos, p.preview(p.pos)))
	case '+':
		return p.syntax(ptr, fmt.Sprintf("numbers must not start with '+' at byte %d, %s", p.pos, p.preview(p.pos)))
	case '.':
		return p.syntax(ptr, fmt.Sprintf("numbers must have a digit before '.' at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	if r, _ := utf8.DecodeRune(p.src[p.pos:]); isNonJSONWhitespace(r) {
		return p.nonJSONWhitespace(r, ptr)
	}
	return p.syntax(ptr, fmt.Sprintf("unexpected character %s where a value was expected at byte %d, %s", p.describeChar(), p.pos, p.preview(p.pos)))
}

// unexpectedStructural explains a character (or the end of input) where a structural character was expected.
func (p *parser) unexpectedStructural(expected, pointer string) *node {
	c := p.peek()
	if c < 0 {
		return p.syntax(pointer, fmt.Sprintf("unterminated container: expected %s at byte %d, at end of input", expected, p.pos))
	}
	if c == '/' || c == '#' {
		return p.syntax(pointer, fmt.Sprintf("comments are not allowed at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	if r, _ := utf8.DecodeRune(p.src[p.pos:]); isNonJSONWhitespace(r) {
		return p.nonJSONWhitespace(r, pointer)
	}
	return p.syntax(pointer, fmt.Sprintf("expected %s but found %s at byte %d, %s", expected, p.describeChar(), p.pos, p.preview(p.pos)))
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
			return p.object(typeMetaOf(s.typeName))
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

// literals are the JSON literal names with their values.
var literals = [...]struct {
	word  string
	value any
}{
	{"true", true},
	{"false", false},
	{"null", nil},
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

// literal parses true, false or null at the cursor into *v.
func (p *parser) literal(v *any) bool {
	for _, w := range literals {
		if p.src[p.pos] != w.word[0] {
			continue
		}
		if p.pos+len(w.word) <= len(p.src) && string(p.src[p.pos:p.pos+len(w.word)]) == w.word {
			if !p.countOne() {
				return false
			}
			p.pos += len(w.word)
			*v = w.value
			return true
		}
		p.syntax(p.slotPointer(), fmt.Sprintf("invalid literal at byte %d (expected '%s'), %s", p.pos, w.word, p.preview(p.pos)))
		return false
	}
	return false
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

// memberName parses the member name at the cursor (its opening quote). A plain name (no escape)
// that t declares is returned as t's own string, so declared names cost no allocation.
func (p *parser) memberName(t *typeMeta) (string, bool) {
	if t != nil {
		if raw, end := p.plainString(); end > 0 {
			for k := range t.fields {
				if name := t.fields[k].name; string(raw) == name {
					p.pos, p.field = end, k
					return name, true
				}
			}
		}
	}
	p.field = -1
	return p.stringLiteral(true)
}

// enumString parses the string at the cursor (its opening quote) as a value of an enum field: a
// plain string equal to one of values is returned as that string (no allocation).
func (p *parser) enumString(values []string) (string, bool) {
	if raw, end := p.plainString(); end > 0 {
		for _, v := range values {
			if string(raw) == v {
				p.pos = end
				return v, true
			}
		}
	}
	return p.stringLiteral(false)
}

// plainString returns the content of the string at the cursor and the offset after its closing
// quote when it has no escape and no control character; end is 0 otherwise.
func (p *parser) plainString() (raw []byte, end int) {
	for i := p.pos + 1; i < len(p.src); i++ {
		c := p.src[i]
		if c == '"' {
			return p.src[p.pos+1 : i], i + 1
		}
		if c == '\\' || c < 0x20 {
			return nil, 0
		}
	}
	return nil, 0
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

// minusZero is -0 as an interface value, shared by every -0 of every open map.
var minusZero any = math.Copysign(0, -1)

// boxNumber is f as an interface value; -0 needs no allocation.
func boxNumber(f float64) any {
	if f == 0 && math.Signbit(f) {
		return minusZero
	}
	return f
}

// quoteKey renders a member name for messages, cut to 32 code points.
func quoteKey(key string) string {
	if utf8.RuneCountInString(key) > 32 {
		return strconv.QuoteToASCII(string([]rune(key)[:32])) + "..."
	}
	return strconv.QuoteToASCII(key)
}

// hex4 is the value of the 4 hex digits at src[i:i+4], or -1.
func (p *parser) hex4(i int) int {
	if i+4 > len(p.src) {
		return -1
	}
	v := 0
	for _, c := range p.src[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}

// stringLiteral parses the string at the cursor (its opening quote) and returns its decoded value.
// Problems inside a member name point at the enclosing object, inside a value at the value.
func (p *parser) stringLiteral(isKey bool) (string, bool) {
	start := p.pos
	i := start + 1
	for i < len(p.src) {
		c := p.src[i]
		if c == '"' {
			p.pos = i + 1
			return p.substring(start+1, i), true
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	ptr := p.slotPointer()
	if isKey {
		ptr = p.containerPointer()
	}
	var b strings.Builder
	b.Write(p.src[start+1 : i])
	for {
		if i >= len(p.src) {
			p.syntax(ptr, fmt.Sprintf("unterminated string (opened at byte %d): end of input at byte %d, %s", start, i, p.preview(start)))
			return "", false
		}
		c := p.src[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return b.String(), true
		case c < 0x20:
			p.syntax(ptr, fmt.Sprintf("unescaped control character U+%04X in string at byte %d (must be written as an escape), %s", c, i, p.preview(i)))
			return "", false
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(p.src) {
			p.syntax(ptr, fmt.Sprintf("unterminated string (opened at byte %d): end of input at byte %d, %s", start, i+1, p.preview(start)))
			return "", false
		}
		switch e := p.src[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			v := p.hex4(i + 2)
			if v < 0 {
				p.syntax(ptr, fmt.Sprintf("invalid \\u escape (expected 4 hex digits) in string at byte %d, %s", i, p.preview(i)))
				return "", false
			}
			if v >= 0xD800 && v <= 0xDFFF {
				if v >= 0xDC00 {
					p.fail(RuleJSONLoneSurrogate, ptr, fmt.Sprintf("lone low-surrogate escape \\u%s (not preceded by a high-surrogate escape) at byte %d", p.src[i+2:i+6], i))
					return "", false
				}
				w := -1
				if i+7 < len(p.src) && p.src[i+6] == '\\' && p.src[i+7] == 'u' {
					w = p.hex4(i + 8)
				}
				if w < 0xDC00 || w > 0xDFFF {
					p.fail(RuleJSONLoneSurrogate, ptr, fmt.Sprintf("lone high-surrogate escape \\u%s (not followed by a \\uDC00-\\uDFFF escape) at byte %d", p.src[i+2:i+6], i))
					return "", false
				}
				b.WriteRune(utf16.DecodeRune(rune(v), rune(w)))
				i += 12
				continue
			}
			b.WriteRune(rune(v))
			i += 6
			continue
		default:
			r, _ := utf8.DecodeRune(p.src[i+1:])
			p.syntax(ptr, fmt.Sprintf("invalid escape sequence \\%s in string at byte %d, %s", strconv.QuoteRuneToASCII(r), i, p.preview(i)))
			return "", false
		}
		i += 2
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number parses the number at the cursor (a '-' or a digit) into a node that keeps its lexeme. A
// non-integer lexeme is marked, and counted when count is set.
func (p *parser) number(count bool) *node {
	start := p.pos
	f, nonInteger, ok := p.scanNumber()
	if !ok {
		return nil
	}
	if nonInteger && count {
		p.nonInteger++
	}
	n := p.newNode(kindNumber)
	n.number = f
	n.nonInteger = nonInteger
	// A generic parse keeps every lexeme (readers of command output take integers from it). A typed
	// parse keeps it only where writeNode's appendFloat would not write it back as it was: a short
	// plain integer (at most 15 digits: exact as a double) needs no string.
	if !p.typed || nonInteger || p.pos-start > 15 {
		n.str = p.substring(start, p.pos)
	}
	return n
}

// scanNumber scans the number at the cursor (a '-' or a digit) and moves past it. It returns its
// value and whether it is written with a fraction, an exponent or as -0; ok is false once an issue
// is recorded.
func (p *parser) scanNumber() (f float64, nonInteger, ok bool) {
	src := p.src
	start := p.pos
	i := start
	digitAt := func(k int) bool { return k < len(src) && isDigit(src[k]) }
	if src[i] == '-' {
		i++
		if strings.HasPrefix(string(src[i:min(i+8, len(src))]), "Infinity") {
			p.syntax(p.slotPointer(), fmt.Sprintf("-Infinity is not valid JSON at byte %d, %s", start, p.preview(start)))
			return 0, false, false
		}
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
		if digitAt(i) {
			p.syntax(p.slotPointer(), fmt.Sprintf("number with a leading zero at byte %d, %s", start, p.preview(start)))
			return 0, false, false
		}
		if i-start == 2 {
			nonInteger = true // -0
		}
	case digitAt(i):
		for digitAt(i) {
			i++
		}
	default:
		p.syntax(p.slotPointer(), fmt.Sprintf("expected a digit after '-' at byte %d, %s", i, p.preview(start)))
		return 0, false, false
	}
	if i < len(src) && src[i] == '.' {
		i++
		if !digitAt(i) {
			p.syntax(p.slotPointer(), fmt.Sprintf("expected a digit after the decimal point at byte %d, %s", i, p.preview(start)))
			return 0, false, false
		}
		for digitAt(i) {
			i++
		}
		nonInteger = true
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if !digitAt(i) {
			p.syntax(p.slotPointer(), fmt.Sprintf("expected a digit in the exponent at byte %d, %s", i, p.preview(start)))
			return 0, false, false
		}
		for digitAt(i) {
			i++
		}
		nonInteger = true
	}
	f, _ = strconv.ParseFloat(string(src[start:i]), 64)
	if math.IsInf(f, 0) {
		shown := string(src[start:min(i, start+32)])
		if i-start > 32 {
			shown += "..."
		}
		p.fail(RuleJSONNumberRange, p.slotPointer(), fmt.Sprintf("number %s at byte %d overflows an IEEE-754 double (magnitude above 1.7976931348623157e308)", shown, start))
		return 0, false, false
	}
	p.pos = i
	return f, nonInteger, true
}

// ---------------------------------------------------------------------------
// Writer: compact JSON, members in node order, strings escaped minimally (quote, backslash and
// control characters; everything else verbatim UTF-8).

func writeNode(b []byte, n *node) []byte {
	switch n.kind {
	case kindNull:
		return append(b, "null"...)
	case kindBool:
		return strconv.AppendBool(b, n.boolean)
	case kindNumber:
		if n.str != "" {
			return append(b, n.str...)
		}
		return appendFloat(b, n.number)
	case kindString:
		return appendString(b, n.str)
	case kindArray:
		b = append(b, '[')
		for i, item := range n.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = writeNode(b, item)
		}
		return append(b, ']')
	case kindObject:
		if n.open != nil {
			var path []slot
			b, _ = appendAny(b, n.open, &path) // encodeIssue has checked it
			return b
		}
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = writeNode(b, n.values[i])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// appendFloat writes a finite double the way encoding/json does: shortest form, exponent
// notation below 1e-6 and from 1e21 on, with at least two exponent digits only when needed.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 -> e-7
		b = b[:n-1]
	}
	return b
}

func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		// Runs of bytes written as they are (most strings are one run) are copied at once.
		run := i
		for run < len(s) && s[run] >= 0x20 && s[run] != '"' && s[run] != '\\' {
			run++
		}
		b = append(b, s[i:run]...)
		if i = run; i == len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// ---------------------------------------------------------------------------
// Open maps (metadata, telemetry_summary): decoded as map[string]any with the value forms of
// encoding/json (nil, bool, float64, string, []any, map[string]any).

func (n *node) toAny() any {
	switch n.kind {
	case kindBool:
		return n.boolean
	case kindNumber:
		return n.number
	case kindString:
		return n.str
	case kindArray:
		out := make([]any, len(n.items))
		for i, item := range n.items {
			out[i] = item.toAny()
		}
		return out
	case kindObject:
		if n.open != nil {
			return n.open
		}
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			out[k] = n.values[i].toAny()
		}
		return out
	}
	return nil
}

// mapNode wraps an open map for encoding. Its members are converted only while encodeIssue checks
// them and writeNode writes them (appendAny): never into a tree of nodes.
func mapNode(m map[string]any) *node { return &node{kind: kindObject, open: m} }

// appendArray writes items as a JSON array, each with each (the path names its index meanwhile);
// it stops at the first issue.
func appendArray[T any](b []byte, items []T, path *[]slot, each func([]byte, T, *[]slot) ([]byte, *Issue)) ([]byte, *Issue) {
	b = append(b, '[')
	for i, item := range items {
		if i > 0 {
			b = append(b, ',')
		}
		*path = append(*path, slot{array: true, index: i})
		var issue *Issue
		if b, issue = each(b, item, path); issue != nil {
			return b, issue
		}
		*path = (*path)[:len(*path)-1]
	}
	return append(b, ']'), nil
}

// appendAny appends the JSON form of v, a value of an open map, to b. Besides the encoding/json value
// forms it accepts every integer and float type, json.Number and json.RawMessage (parsed strictly),
// and falls back to encoding/json for anything else; map members are written in sorted key order.
// It stops at the first value, in that order, that no reader would accept and returns its issue:
// a NaN or infinite float, or a json.Number, json.RawMessage or encoding/json output that breaks
// the parse layer (a number beyond the doubles, such as a *big.Int of 10^400, is
// json.number-range); a string or member name that is not UTF-8 (json.utf8); nesting beyond
// limits.max_depth (json.max-depth, which also ends a map that contains itself); a value
// encoding/json cannot marshal (schema.type). path is the location of v; it is extended while
// the walk descends, and a pointer is built only for the issue.
func appendAny(b []byte, v any, path *[]slot) ([]byte, *Issue) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		if !utf8.ValidString(x) {
			return b, pathIssue(RuleJSONUTF8, *path, "string is not valid UTF-8")
		}
		return appendString(b, x), nil
	case float64:
		return appendFinite(b, x, *path)
	case float32:
		return appendFinite(b, float64(x), *path)
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case json.Number:
		return appendRaw(b, []byte(x), *path)
	case json.RawMessage:
		return appendRaw(b, x, *path)
	case []any:
		if len(*path) >= LimitMaxDepth {
			return b, tooDeep(*path)
		}
		return appendArray(b, x, path, appendAny)
	case map[string]any:
		if len(*path) >= LimitMaxDepth {
			return b, tooDeep(*path)
		}
		var room [smallSort]member // most maps are sorted without an allocation
		b = append(b, '{')
		for i, m := range sortedMembers(room[:0], x) {
			if i > 0 {
				b = append(b, ',')
			}
			*path = append(*path, slot{key: m.key})
			if !utf8.ValidString(m.key) {
				return b, pathIssue(RuleJSONUTF8, *path, "member name is not valid UTF-8")
			}
			// As a reader counts the names of the text written (json.max-members): the name first, then the count.
			if i >= LimitMaxObjectMembers {
				return b, pathIssue(RuleJSONMaxMembers, *path, fmt.Sprintf("member number %d exceeds the limit of %d members per object", i+1, LimitMaxObjectMembers))
			}
			b = append(appendString(b, m.key), ':')
			var issue *Issue
			if b, issue = appendAny(b, m.value, path); issue != nil {
				return b, issue
			}
			*path = (*path)[:len(*path)-1]
		}
		return append(b, '}'), nil
	}
	text, err := json.Marshal(v)
	if err != nil {
		return b, pathIssue(RuleSchemaType, *path, fmt.Sprintf("value of Go type %T has no JSON form: %v", v, err))
	}
	return appendRaw(b, text, *path)
}

// member is one member of an open map.
type member struct {
	key   string
	value any
}

// sortedMembers appends the members of m to members (empty) and sorts them by name: one pass over
// the map, no lookups.
func sortedMembers(members []member, m map[string]any) []member {
	for k, v := range m {
		members = append(members, member{k, v})
	}
	if len(members) > smallSort {
		slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
		return members
	}
	// An insertion sort with the comparison inlined: most open maps are small.
	for i := 1; i < len(members); i++ {
		for j := i; j > 0 && members[j].key < members[j-1].key; j-- {
			members[j], members[j-1] = members[j-1], members[j]
		}
	}
	return members
}

// smallSort is the member count up to which sortedMembers sorts by insertion.
const smallSort = 12

// pathIssue is an issue at the location path.
func pathIssue(rule string, path []slot, message string) *Issue {
	return &Issue{Rule: rule, Pointer: slotsPointer(path), Message: message}
}

// tooDeep is the json.max-depth issue of a container at path.
func tooDeep(path []slot) *Issue {
	return pathIssue(RuleJSONMaxDepth, path, fmt.Sprintf("nesting exceeds the limit of %d", LimitMaxDepth))
}

// appendFinite appends a double; NaN and the infinities have no JSON form.
func appendFinite(b []byte, f float64, path []slot) ([]byte, *Issue) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, pathIssue(RuleJSONNumberRange, path, fmt.Sprintf("%v has no JSON form", f))
	}
	return appendFloat(b, f), nil
}

// appendRaw appends JSON text supplied by the caller (json.Number, json.RawMessage, encoding/json
// output) after parsing it strictly, so the document stays one every reader accepts.
func appendRaw(b []byte, text []byte, path []slot) ([]byte, *Issue) {
	n, _, issue := parseDocument(text, DocumentLimits{MaxBytes: math.MaxInt, MaxDepth: LimitMaxDepth - len(path), MaxMembers: LimitMaxObjectMembers})
	if issue != nil {
		return b, pathIssue(issue.Rule, path, "embedded JSON is invalid: "+issue.Message)
	}
	return writeNode(b, n), nil
}

// stringNode is the node of the string s. The current wire version, the schema_version of nearly
// every document a Go value is encoded to, is one shared node (as jsonNull is): trees built from
// Go values are only read, never changed.
func stringNode(s string) *node {
	if s == WireVersion {
		return &wireVersionNode
	}
	return &node{kind: kindString, str: s}
}

// wireVersionNode is the shared node of WireVersion (see stringNode).
var wireVersionNode = node{kind: kindString, str: WireVersion}

func intNode(i int64) *node {
	return &node{kind: kindNumber, number: float64(i), str: strconv.FormatInt(i, 10)}
}
