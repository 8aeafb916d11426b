package lifeloop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// frameKind is what a stream frame is (spec/stream-mode.md, frame schemas).
type frameKind uint8

const (
	frameRequest frameKind = iota + 1
	frameNotification
	frameSuccess
	frameError
)

// String names the kind as the stream-v2 table does.
func (k frameKind) String() string {
	switch k {
	case frameRequest:
		return "request"
	case frameNotification:
		return "notification"
	case frameSuccess:
		return "success_reply"
	}
	return "error_reply"
}

// streamFrame is one decoded frame. id is nil for a notification.
type streamFrame struct {
	kind   frameKind
	id     *node
	method string
	params *node
	// rawParams are the bytes of params as written (valid until the next frame is read).
	rawParams []byte
	result    *node
	code      int64
	msg       string
	data      *node
}

// FramingError is a line that is not exactly one JSON-RPC 2.0 frame: Rule is the stable rule id
// (a stream.* framing rule of spec/tables/stream-v2.json, or the json.* rule the strict parser
// names for stream.json), Message says why.
type FramingError struct {
	Rule    string
	Message string
}

// Error describes the violation.
func (e *FramingError) Error() string { return e.Rule + ": " + e.Message }

func framing(rule, format string, args ...any) *FramingError {
	return &FramingError{Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// idKey is the correlation key of an id: type and value compared exactly ("7" is not 7).
func idKey(id *node) string {
	if id.kind == kindString {
		return "s" + id.str
	}
	return "n" + id.str
}

// The members of each frame kind (schemas/stream/jsonrpc-*.schema.json).
var (
	requestMembers = map[string]bool{"jsonrpc": true, "id": true, "method": true, "params": true}
	successMembers = map[string]bool{"jsonrpc": true, "id": true, "result": true}
	errorMembers   = map[string]bool{"jsonrpc": true, "id": true, "error": true}
)

// decodeFrame strictly decodes one frame: the bytes of a line, LF removed. The checks run in the
// order of spec/stream-protocol.md: one trailing CR stripped (stream.frame-cr), stream.empty-frame,
// the json.* rules, stream.batch, stream.not-object, stream.jsonrpc, stream.frame-kind, stream.id,
// stream.method, stream.params, stream.error-object; the first failing one is reported.
func decodeFrame(line []byte) (*streamFrame, *FramingError) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) == 0 {
		return nil, framing(ruleStreamEmptyFrame, "empty line (a frame is one JSON object)")
	}
	root, _, issue := parseDocument(line, DocumentLimits{MaxBytes: math.MaxInt, MaxDepth: LimitMaxDepth + 1, MaxValues: LimitMaxFrameValues})
	if issue != nil {
		return nil, framing(issue.Rule, "%s at %q", issue.Message, issue.Pointer)
	}
	switch root.kind {
	case kindObject:
	case kindArray:
		return nil, framing(ruleStreamBatch, "a JSON array (a batch); this binding has no batches")
	default:
		return nil, framing(ruleStreamNotObject, "a JSON %s, not an object", kindWord(root.kind))
	}
	if v, ok := root.get("jsonrpc"); !ok || v.kind != kindString || v.str != "2.0" {
		return nil, framing(ruleStreamJSONRPC, `member "jsonrpc" must be the string "2.0"`)
	}
	f := &streamFrame{}
	id, hasID := root.get("id")
	method, hasMethod := root.get("method")
	_, hasResult := root.get("result")
	_, hasError := root.get("error")
	members := requestMembers
	switch {
	case hasMethod:
		f.kind = frameNotification
		if hasID {
			f.kind = frameRequest
		}
	case hasResult && !hasError && hasID:
		f.kind, members = frameSuccess, successMembers
	case hasError && !hasResult && hasID:
		f.kind, members = frameError, errorMembers
	default:
		return nil, framing(ruleStreamFrameKind, "the members fit no frame kind (a reply needs an id and exactly one of result and error; a request or notification needs method)")
	}
	for _, k := range root.keys {
		if !members[k] {
			return nil, framing(ruleStreamFrameKind, "member %q does not belong in a %s", k, f.kind)
		}
	}
	if hasID {
		if err := checkID(id); err != nil {
			return nil, err
		}
		f.id = id
	}
	switch f.kind {
	case frameRequest, frameNotification:
		if method.kind != kindString || method.str == "" || utf8.RuneCountInString(method.str) > streamMethodMaxLength || strings.HasPrefix(method.str, streamReservedPrefix) {
			return nil, framing(ruleStreamMethod, "method must be a string of 1..%d characters not starting with %q", streamMethodMaxLength, streamReservedPrefix)
		}
		f.method = method.str
		if params, ok := root.get("params"); ok {
			if params.kind != kindObject {
				return nil, framing(ruleStreamParams, `member "params" must be an object`)
			}
			f.params = params
			f.rawParams = rawMember(line, "params")
		}
	case frameSuccess:
		f.result, _ = root.get("result")
	case frameError:
		e, _ := root.get("error")
		if err := f.readError(e); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// checkID accepts a string of 1..128 characters or an integer 0..2^53-1 written as a plain
// integer (spec/tables/stream-v2.json ids).
func checkID(id *node) *FramingError {
	ids := SpecStreamV2.IDs
	switch id.kind {
	case kindString:
		if n := utf8.RuneCountInString(id.str); n >= 1 && int64(n) <= ids.StringMaxLength {
			return nil
		}
		return framing(ruleStreamID, "a string id has 1..%d characters", ids.StringMaxLength)
	case kindNumber:
		if !id.nonInteger {
			if v, err := strconv.ParseInt(id.str, 10, 64); err == nil && v >= ids.IntegerMinimum && v <= ids.IntegerMaximum && id.str != "-0" {
				return nil
			}
		}
		return framing(ruleStreamID, "id %s is not an integer from %d to %d written as a plain integer", id.str, ids.IntegerMinimum, ids.IntegerMaximum)
	}
	return framing(ruleStreamID, `member "id" must be a string or an integer, not %s`, kindWord(id.kind))
}

func (f *streamFrame) readError(e *node) *FramingError {
	bad := func(format string, args ...any) *FramingError {
		return framing(ruleStreamErrorObject, "error object: "+format, args...)
	}
	if e.kind != kindObject {
		return bad("not an object")
	}
	for _, k := range e.keys {
		if k != "code" && k != "message" && k != "data" {
			return bad("unknown member %q", k)
		}
	}
	code, ok := e.get("code")
	if !ok || code.kind != kindNumber || code.nonInteger {
		return bad(`member "code" must be an integer`)
	}
	v, err := strconv.ParseInt(code.str, 10, 64)
	if err != nil || v < -maxSafeInteger || v > maxSafeInteger {
		return bad("code %s is outside -(2^53-1)..2^53-1", code.str)
	}
	message, ok := e.get("message")
	if !ok || message.kind != kindString || utf8.RuneCountInString(message.str) > streamMessageMaxLength {
		return bad(`member "message" must be a string of at most %d characters`, streamMessageMaxLength)
	}
	f.code, f.msg = v, message.str
	if data, ok := e.get("data"); ok {
		f.data = data
	}
	return nil
}

// maxSafeInteger is 2^53-1, the bound of an error code.
const maxSafeInteger = 1<<53 - 1

func kindWord(k nodeKind) string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindArray:
		return "array"
	}
	return "object"
}

// appendFrameHead starts a frame: {"jsonrpc":"2.0","id":<id>, (no id when nil).
func appendFrameHead(b []byte, id *node) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id != nil {
		b = append(b, `,"id":`...)
		b = writeNode(b, id)
	}
	return b
}

// successFrame is the reply {"jsonrpc":"2.0","id":id,"result":result} with its LF.
func successFrame(id *node, result []byte) []byte {
	b := appendFrameHead(make([]byte, 0, len(result)+64), id)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, "}\n"...)
}

// errorFrame is the reply {"jsonrpc":"2.0","id":id,"error":{"code":c,"message":m}} with its LF.
func errorFrame(id *node, code int64, message string) []byte {
	b := appendFrameHead(nil, id)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	return append(b, "}}\n"...)
}

// requestFrame is {"jsonrpc":"2.0","id":id,"method":m,"params":params} with its LF.
func requestFrame(id *node, method string, params []byte) []byte {
	b := appendFrameHead(make([]byte, 0, len(params)+64), id)
	b = append(b, `,"method":`...)
	b = appendString(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, "}\n"...)
}

// rawMember returns the bytes of the value of the top-level member name of frame, a line the
// strict parser has accepted as one JSON object (so every string, nesting and separator in it is
// well-formed and no member name repeats), or nil when there is no such member. It lets the
// runner judge params as the document the host wrote, without writing the parsed tree again.
func rawMember(frame []byte, name string) []byte {
	i := skipJSONSpace(frame, 0)
	if i >= len(frame) || frame[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipJSONSpace(frame, i)
		if i >= len(frame) || frame[i] != '"' {
			return nil // '}': no such member
		}
		keyEnd := stringEnd(frame, i)
		key := frame[i:keyEnd]
		i = skipJSONSpace(frame, keyEnd)
		if i >= len(frame) || frame[i] != ':' {
			return nil
		}
		start := skipJSONSpace(frame, i+1)
		end := valueEnd(frame, start)
		if memberNameIs(key, name) {
			return frame[start:end]
		}
		i = skipJSONSpace(frame, end)
		if i >= len(frame) || frame[i] != ',' {
			return nil
		}
		i++
	}
}

// memberNameIs compares a quoted member name as written (escapes allowed) with name.
func memberNameIs(quoted []byte, name string) bool {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return len(quoted) == len(name)+2 && string(quoted[1:len(quoted)-1]) == name
	}
	var decoded string
	return json.Unmarshal(quoted, &decoded) == nil && decoded == name
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the offset just past the string literal starting at b[i] ('"').
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd is the offset just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
