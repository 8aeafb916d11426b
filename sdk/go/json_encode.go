// Strict JSON, layer 3: the writer (compact JSON from nodes and from decoded open-map values).

package lifeloop

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

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
