// Strict JSON, layer 1: the parsed node tree (node, its kinds and member lookup), the node arena,
// JSON pointers, and the document limits. Parser: json_parse.go; writer: json_encode.go.

package lifeloop

import (
	"strconv"
	"strings"
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
