package lifeloop

import "fmt"

// The stream-mode facts the runner uses, read from the generated table of
// spec/tables/stream-v2.json (SpecStreamV2) and the limits (spec/tables/limits.json). Framing rule
// ids are the generated RuleStream* constants (zz_spec_tables.go). An error name that the table
// does not hold stops the program at start-up (and the tests), so the runner can never answer
// with a code the spec does not define.

// streamErrorCode returns the JSON-RPC code of an error name of the stream-v2 table.
func streamErrorCode(name string) int64 {
	for _, e := range SpecStreamV2.ErrorCodes {
		if e.Name == name {
			return e.Code
		}
	}
	panic(fmt.Sprintf("lifeloop: %q is not an error name of spec/tables/stream-v2.json", name))
}

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
