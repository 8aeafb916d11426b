package lifeloop

import (
	"fmt"
	"math"
	"strconv"
)

// frameKind is what a stream frame is (spec/stream-mode.md, frame schemas).
type frameKind uint8

const (
	frameRequest frameKind = iota + 1
	frameNotification
	frameSuccess
	frameError
)

// streamFrame is one decoded frame. id is nil for a notification.
type streamFrame struct {
	kind   frameKind
	id     *node
	method string
	params *node
	result *node
	code   int64
	msg    string
	data   *node
}

// FramingError is a line that is not exactly one JSON-RPC 2.0 frame: Rule is the stable rule id
// (a stream.* framing rule or the json.* parse rule), Message says why.
type FramingError struct {
	Rule    string
	Message string
}

// Error describes the violation.
func (e *FramingError) Error() string { return e.Rule + ": " + e.Message }

func framing(rule, format string, args ...any) *FramingError {
	return &FramingError{Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// maxSafeID is the largest integer id (2^53-1).
const maxSafeID = 1<<53 - 1

// idKey is the correlation key of an id: type and value compared exactly ("7" is not 7).
func idKey(id *node) string {
	if id.kind == kindString {
		return "s" + id.str
	}
	return "n" + id.str
}

// frameMembers are the members a frame may have.
var frameMembers = map[string]bool{"jsonrpc": true, "id": true, "method": true, "params": true, "result": true, "error": true}

// decodeFrame strictly decodes one frame (the bytes of a line, LF removed).
func decodeFrame(line []byte) (*streamFrame, *FramingError) {
	if len(line) == 0 {
		return nil, framing(RuleStreamEmptyLine, "empty line (a frame is one JSON object)")
	}
	if line[len(line)-1] == '\r' {
		return nil, framing(RuleStreamCR, "the frame ends with CR (0x0D); frames end with LF only")
	}
	root, _, issue := parseDocument(line, DocumentLimits{MaxBytes: math.MaxInt, MaxDepth: LimitMaxDepth + 1})
	if issue != nil {
		return nil, framing(issue.Rule, "%s at %q", issue.Message, issue.Pointer)
	}
	switch root.kind {
	case kindObject:
	case kindArray:
		return nil, framing(RuleStreamBatch, "a JSON array (a batch); batches are not part of stream mode")
	default:
		return nil, framing(RuleStreamNotObject, "a JSON %s, not an object", kindWord(root.kind))
	}
	for _, k := range root.keys {
		if !frameMembers[k] {
			return nil, framing(RuleStreamUnknownMember, "unknown member %q", k)
		}
	}
	if v, ok := root.get("jsonrpc"); !ok || v.kind != kindString || v.str != "2.0" {
		return nil, framing(RuleStreamVersion, `member "jsonrpc" must be the string "2.0"`)
	}
	f := &streamFrame{}
	id, hasID := root.get("id")
	if hasID {
		if err := checkID(id); err != nil {
			return nil, err
		}
		f.id = id
	}
	method, hasMethod := root.get("method")
	result, hasResult := root.get("result")
	errorObject, hasError := root.get("error")
	params, hasParams := root.get("params")
	switch {
	case hasMethod:
		if hasResult || hasError {
			return nil, framing(RuleStreamNotFrame, `a request has no "result" or "error"`)
		}
		if method.kind != kindString {
			return nil, framing(RuleStreamNotFrame, `member "method" must be a string`)
		}
		f.method = method.str
		f.kind = frameNotification
		if hasID {
			f.kind = frameRequest
		}
		if hasParams {
			if params.kind != kindObject {
				return nil, framing(RuleStreamNotFrame, `member "params" must be an object`)
			}
			f.params = params
		}
	case hasParams:
		return nil, framing(RuleStreamNotFrame, `"params" without "method"`)
	case hasResult == hasError:
		return nil, framing(RuleStreamNotFrame, `a reply has exactly one of "result" and "error"`)
	case !hasID:
		return nil, framing(RuleStreamNotFrame, `a reply has an "id"`)
	case hasResult:
		f.kind = frameSuccess
		f.result = result
	default:
		f.kind = frameError
		if err := f.readError(errorObject); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// checkID accepts a string or an integer number in [0, 2^53-1] written without fraction or exponent.
func checkID(id *node) *FramingError {
	switch id.kind {
	case kindString:
		return nil
	case kindNumber:
		if !id.nonInteger {
			if v, err := strconv.ParseUint(id.str, 10, 64); err == nil && v <= maxSafeID {
				return nil
			}
		}
		return framing(RuleStreamID, "id %s is not an integer from 0 to 2^53-1", id.str)
	}
	return framing(RuleStreamID, `member "id" must be a string or an integer, not %s`, kindWord(id.kind))
}

func (f *streamFrame) readError(e *node) *FramingError {
	if e.kind != kindObject {
		return framing(RuleStreamNotFrame, `member "error" must be an object`)
	}
	for _, k := range e.keys {
		if k != "code" && k != "message" && k != "data" {
			return framing(RuleStreamUnknownMember, "unknown member %q in the error object", k)
		}
	}
	code, ok := e.get("code")
	if !ok || code.kind != kindNumber || code.nonInteger {
		return framing(RuleStreamNotFrame, `error member "code" must be an integer`)
	}
	v, err := strconv.ParseInt(code.str, 10, 64)
	if err != nil {
		return framing(RuleStreamNotFrame, "error code %s is out of range", code.str)
	}
	message, ok := e.get("message")
	if !ok || message.kind != kindString {
		return framing(RuleStreamNotFrame, `error member "message" must be a string`)
	}
	f.code, f.msg = v, message.str
	if data, ok := e.get("data"); ok {
		f.data = data
	}
	return nil
}

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
