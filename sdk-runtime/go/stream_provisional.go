package lifeloop

// PROVISIONAL (issue-10 part B): stream-mode facts that part A's spec (spec/stream-mode.md and its
// tables) owns. Every name here is replaced by the generated constant once the spec lands; see
// /work/coord/stream-questions.txt for the questions behind each value.
const (
	streamMethodEventPrefix = "event/"          // CALLBACK-001 §C
	streamMethodCancel      = "lifeloop/cancel" // Q1
	streamMaxFrameBytes     = 4 << 20           // Q4
	streamShutdownGraceMs   = 500               // Q9
	rpcCodeMethodNotFound   = -32601
	rpcCodeInvalidParams    = -32602
	rpcCodeInvalidRequest   = -32600

	RuleStreamEmptyLine     = "stream.empty-line"
	RuleStreamCR            = "stream.cr"
	RuleStreamBatch         = "stream.batch"
	RuleStreamNotObject     = "stream.not-object"
	RuleStreamUnknownMember = "stream.unknown-member"
	RuleStreamVersion       = "stream.jsonrpc-version"
	RuleStreamNotFrame      = "stream.not-a-frame"
	RuleStreamID            = "stream.id"
	RuleStreamTooLarge      = "stream.max-frame-bytes"
	RuleStreamTruncated     = "stream.truncated"
	RuleStreamMethodEvent   = "stream.method-event"
)
