// Client-to-host requests over the stream (commands run over the stream; CALLBACK-001 §C): call,
// its reply, and the errors it returns.

package lifeloop

import (
	"context"
	"errors"
	"fmt"
)

// callReply is the host's answer to a client request: result, or an *RPCError.
type callReply struct {
	result *node
	err    *RPCError
}

// RPCError is a JSON-RPC error reply the host sent to a client request (CALLBACK-001 §C).
// Code is the JSON-RPC error code (spec/tables/stream-v2.json error_codes), Message its text, Data the
// decoded `data` member (nil when absent).
type RPCError struct {
	Code    int64
	Message string
	Data    any
}

// Error describes the reply.
func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// RequestFrameTooLargeError is a client request whose frame would be Bytes long (LF not counted),
// over MaxBytes (limits.max_frame_bytes): it is not sent, since the host would end the stream for
// it (stream.frame-too-large) and fail every pending event. A blob of more than about three
// quarters of max_frame_bytes goes through the CLI instead (Host.Path; spec/stream-protocol.md
// §Limits).
type RequestFrameTooLargeError struct {
	Bytes    int
	MaxBytes int
}

// Error describes the request.
func (e *RequestFrameTooLargeError) Error() string {
	return fmt.Sprintf("the request frame would be %d bytes, over the maximum frame size (%d bytes); send a blob this large through the CLI", e.Bytes, e.MaxBytes)
}

// ErrStreamClosed is returned by a client request when the stream ended before the host answered.
var ErrStreamClosed = errors.New("the stream ended before the host answered")

// call sends a client request to the host and waits for its reply, ctx or the end of the stream.
// At most limits.max_client_requests_in_flight requests are unanswered at a time: one more waits
// (for a reply to free a slot, ctx or the end of the stream) before it is written. A request
// given up on (ctx) keeps its slot until the host answers it, since the host counts it until then.
func (c *streamConn) call(ctx context.Context, method string, params []byte) (*node, error) {
	// The reply is read by the reading goroutine, which must not be the one waiting here (nor
	// the one waiting for a slot, which only a reply frees).
	c.yieldReading(nil)
	select {
	case c.callSlots <- struct{}{}:
	default:
		// Waiting for the host too: a handler place is lent meanwhile (see takeHandlerPlace).
		c.mu.Lock()
		c.slotWaiters++
		c.mu.Unlock()
		c.wakeHandlerWaiter()
		var err error
		select {
		case c.callSlots <- struct{}{}:
		case <-ctx.Done():
			err = ctx.Err()
		case <-c.closed:
			err = ErrStreamClosed
		}
		c.mu.Lock()
		c.slotWaiters--
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	select {
	case <-c.closed:
		c.mu.Unlock()
		return nil, ErrStreamClosed
	default:
	}
	c.nextID++
	id := stringNode(fmt.Sprintf("c%d", c.nextID))
	frame := requestFrame(id, method, params)
	if n := len(frame) - 1; n > LimitMaxFrameBytes {
		c.mu.Unlock()
		<-c.callSlots
		return nil, &RequestFrameTooLargeError{Bytes: n, MaxBytes: LimitMaxFrameBytes}
	}
	reply := make(chan callReply, 1) // room for the reply, so one given up on is still taken
	c.calls[idKey(id)] = reply
	c.mu.Unlock()
	c.wakeHandlerWaiter() // the request in flight makes room for one more handler
	c.write(frame)
	select {
	case r := <-reply:
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, ErrStreamClosed
	}
}
