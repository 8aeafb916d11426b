package lifeloop

import "fmt"

// The stream-mode facts the runner uses, read from the generated table of
// spec/tables/stream-v2.json (SpecStreamV2) and the limits (spec/tables/limits.json). A rule id
// or error name that the table does not hold stops the program at start-up (and the tests), so
// the runner can never report an id the spec does not define.

// streamRule returns id when it is a framing rule of the stream-v2 table.
func streamRule(id string) string {
	for _, r := range SpecStreamV2.FramingRules {
		if r.ID == id {
			return id
		}
	}
	panic(fmt.Sprintf("lifeloop: %q is not a framing rule of spec/tables/stream-v2.json", id))
}

// streamErrorCode returns the JSON-RPC code of an error name of the stream-v2 table.
func streamErrorCode(name string) int64 {
	for _, e := range SpecStreamV2.ErrorCodes {
		if e.Name == name {
			return e.Code
		}
	}
	panic(fmt.Sprintf("lifeloop: %q is not an error name of spec/tables/stream-v2.json", name))
}

// Framing rule ids (spec/stream-protocol.md §Framing).
var (
	ruleStreamEmptyFrame        = streamRule("stream.empty-frame")
	ruleStreamFrameTooLarge     = streamRule("stream.frame-too-large")
	ruleStreamUnterminatedFrame = streamRule("stream.unterminated-frame")
	ruleStreamBatch             = streamRule("stream.batch")
	ruleStreamNotObject         = streamRule("stream.not-object")
	ruleStreamJSONRPC           = streamRule("stream.jsonrpc")
	ruleStreamFrameKind         = streamRule("stream.frame-kind")
	ruleStreamID                = streamRule("stream.id")
	ruleStreamMethod            = streamRule("stream.method")
	ruleStreamParams            = streamRule("stream.params")
	ruleStreamErrorObject       = streamRule("stream.error-object")
)

// JSON-RPC error codes the runner answers with.
var (
	rpcMethodNotFound = streamErrorCode("method_not_found")
	rpcInvalidRequest = streamErrorCode("invalid_request")
)

// Bounds of one frame's members (spec/tables/stream-v2.json ids, frame schemas).
const (
	streamMethodMaxLength  = 256
	streamMessageMaxLength = 65536
	streamReservedPrefix   = "rpc."
)
