package lifeloop

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// frameKind is what a stream frame is (spec/stream-protocol.md, frame schemas).
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
	// paramsAt tells how params was parsed and where it is in the line (see parseFrame).
	paramsAt paramsMember
	result   *node
	code     int64
	msg      string
	data     *node
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

// rpcID is the correlation key of an id: type and value compared exactly ("7" is not 7). text is
// the string's value or the integer's lexeme.
type rpcID struct {
	text     string
	isString bool
}

// idKey is the correlation key of id.
func idKey(id *node) rpcID {
	return rpcID{text: id.str, isString: id.kind == kindString}
}

// The members of each frame kind (schemas/stream/jsonrpc-*.schema.json).
var (
	requestMembers = []string{"jsonrpc", "id", "method", "params"}
	successMembers = []string{"jsonrpc", "id", "result"}
	errorMembers   = []string{"jsonrpc", "id", "error"}
)

// decodeFrame strictly decodes one frame: the bytes of a line, LF removed. The checks run in the
// order of spec/stream-protocol.md: one trailing CR stripped (stream.frame-cr), stream.empty-frame,
// the json.* rules, stream.batch, stream.not-object, stream.jsonrpc, stream.frame-kind, stream.id,
// stream.method, stream.params, stream.error-object; the first failing one is reported. p parses
// the line (see parseFrame); nil means a fresh parser. The frame is written into into (its old
// contents dropped), nil means a new one: a reader that is done with its last frame reuses it.
func decodeFrame(line []byte, p *parser, into *streamFrame) (*streamFrame, *FramingError) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) == 0 {
		return nil, framing(RuleStreamEmptyFrame, "empty line (a frame is one JSON object)")
	}
	root, paramsAt, issue := parseFrame(line, p)
	if issue != nil {
		return nil, framing(issue.Rule, "%s at %q", issue.Message, issue.Pointer)
	}
	switch root.kind {
	case kindObject:
	case kindArray:
		return nil, framing(RuleStreamBatch, "a JSON array (a batch); this binding has no batches")
	default:
		return nil, framing(RuleStreamNotObject, "a JSON %s, not an object", kindWord(root.kind))
	}
	if v, ok := root.get("jsonrpc"); !ok || v.kind != kindString || v.str != "2.0" {
		return nil, framing(RuleStreamJSONRPC, `member "jsonrpc" must be the string "2.0"`)
	}
	f := into
	if f == nil {
		f = &streamFrame{}
	} else {
		*f = streamFrame{}
	}
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
		return nil, framing(RuleStreamFrameKind, "the members fit no frame kind (a reply needs an id and exactly one of result and error; a request or notification needs method)")
	}
	for _, k := range root.keys {
		if !contains(members, k) { // a few short names: faster than hashing
			return nil, framing(RuleStreamFrameKind, "member %q does not belong in a %s", k, f.kind)
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
			return nil, framing(RuleStreamMethod, "method must be a string of 1..%d characters not starting with %q", streamMethodMaxLength, streamReservedPrefix)
		}
		f.method = method.str
		if params, ok := root.get("params"); ok {
			if params.kind != kindObject {
				return nil, framing(RuleStreamParams, `member "params" must be an object`)
			}
			f.params, f.paramsAt = params, paramsAt
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

// frameLimits bound the strict parse of one frame: no byte limit (the FrameReader enforces
// limits.max_frame_bytes), limits.max_frame_values, and one level more than limits.max_depth for
// the frame object around params, so params may nest as deep as a v1 DispatchEnvelope;
// limits.max_object_members for every object, the frame's and the carried document's.
var frameLimits = DocumentLimits{MaxBytes: math.MaxInt, MaxDepth: LimitMaxDepth + 1, MaxValues: LimitMaxFrameValues, MaxMembers: LimitMaxObjectMembers}

// dispatchEnvelopeType is the wire type of an event request's params (spec/stream-protocol.md).
const dispatchEnvelopeType = "DispatchEnvelope"

// paramsMember is where a frame's params member is and how parseFrame parsed it.
type paramsMember struct {
	// raw are the bytes of the value as the host wrote them; they alias the line, so they are
	// valid until the next frame is read.
	raw []byte
	// envelope is true when the value was parsed along the DispatchEnvelope schema, exactly as
	// parseTyped parses that document; false for a generic parse (every value a node).
	envelope bool
	// values is the number of JSON values in params, itself included.
	values int
	// nonInteger counts the numbers written with a fraction, an exponent or as -0 in integer
	// fields of the envelope (envelope only).
	nonInteger int
}

// parseFrame strictly parses one frame line with frameLimits and reports the same json.* issue as
// parseDocument for every input; the tree differs only in params. When the method member comes
// before params and names an event (eventKind), params is parsed along the DispatchEnvelope
// schema, so the runner validates and decodes that tree instead of parsing the bytes a second
// time (hosts write method first). The params member, if any, is described by the paramsMember.
//
// p is the parser to use, nil for a fresh one. A parser used again cuts the tree from the memory
// of its last parse (p.mem: reset it first, once nothing points into that tree; see nodeArena).
func parseFrame(line []byte, p *parser) (*node, paramsMember, *Issue) {
	var params paramsMember
	if p == nil {
		p = &parser{}
	}
	if issue := p.begin(line, frameLimits, false); issue != nil {
		return nil, params, issue
	}
	p.skipWS()
	if p.peek() != '{' {
		root, _, issue := p.finish(p.value(false, nil))
		return root, params, issue
	}
	var root *node
	if p.countOne() { // the root object, counted as value counts it
		root = p.frameObject(&params)
	}
	root, _, issue := p.finish(root)
	return root, params, issue
}

// frameObject parses the frame object at the cursor as object(nil) does, parsing params as
// parseFrame says and recording it in params.
func (p *parser) frameObject(params *paramsMember) *node {
	n := p.newNode(kindObject)
	// Room for the members of a request (jsonrpc, id, method, params) at once.
	n.keys, n.values = p.memberSlices(4)
	event := false
	ok := p.members(nil, func(key string) bool {
		_, dup := n.get(key)
		return dup
	}, func(key string) bool {
		var v *node
		if key == "params" {
			v = p.paramsValue(event, params)
		} else {
			v = p.value(false, nil)
		}
		if v == nil {
			return false
		}
		if key == "method" && v.kind == kindString {
			_, event = eventKind(v.str)
		}
		n.add(key, v)
		return true
	})
	if !ok {
		return nil
	}
	return n
}

// paramsValue parses the value of params at the cursor (along the DispatchEnvelope schema when
// envelope is set) and records where it is and what it holds in params.
func (p *parser) paramsValue(envelope bool, params *paramsMember) *node {
	p.skipWS()
	start, values, nonInteger := p.pos, p.values, p.nonInteger
	var v *node
	if envelope {
		p.typed = true
		v = p.value(false, &shape{kind: shapeObject, typeName: dispatchEnvelopeType})
		p.typed = false
	} else {
		v = p.value(false, nil)
	}
	if v != nil {
		*params = paramsMember{raw: p.src[start:p.pos], envelope: envelope, values: p.values - values, nonInteger: p.nonInteger - nonInteger}
	}
	return v
}

// eventKind is the event kind a method names (event/<kind> of spec/tables/stream-v2.json) and
// whether it names a known kind (an unknown one is an unknown method).
func eventKind(method string) (string, bool) {
	event, ok := strings.CutPrefix(method, SpecStreamV2.HostToClient.EventMethodPrefix)
	return event, ok && LifecycleEventKind(event).Valid()
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
		return framing(RuleStreamID, "a string id has 1..%d characters", ids.StringMaxLength)
	case kindNumber:
		if !id.nonInteger {
			if v, err := strconv.ParseInt(id.str, 10, 64); err == nil && v >= ids.IntegerMinimum && v <= ids.IntegerMaximum && id.str != "-0" {
				return nil
			}
		}
		return framing(RuleStreamID, "id %s is not an integer from %d to %d written as a plain integer", id.str, ids.IntegerMinimum, ids.IntegerMaximum)
	}
	return framing(RuleStreamID, `member "id" must be a string or an integer, not %s`, kindWord(id.kind))
}

func (f *streamFrame) readError(e *node) *FramingError {
	bad := func(format string, args ...any) *FramingError {
		return framing(RuleStreamErrorObject, "error object: "+format, args...)
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
	b := appendSuccessHead(make([]byte, 0, len(result)+64), id)
	b = append(b, result...)
	return append(b, "}\n"...)
}

// appendSuccessHead starts the reply to id: {"jsonrpc":"2.0","id":<id>,"result":
func appendSuccessHead(b []byte, id *node) []byte {
	return append(appendFrameHead(b, id), `,"result":`...)
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
