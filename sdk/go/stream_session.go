// One stream session: the connection (streamConn), dispatch of host frames, the in-flight bound and
// the answers to events. Entry points: stream_runner.go.

package lifeloop

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// streamConn is one running stream: the writer, the host's in-flight events and the client's
// pending requests to the host.
type streamConn struct {
	out     io.Writer
	writeMu sync.Mutex
	broken  bool
	logf    func(string, ...any)

	mu     sync.Mutex
	events map[rpcID]*inflight
	byReq  map[eventKey]*inflight
	calls  map[rpcID]chan callReply
	// callSlots holds one token per client request the host has not answered yet, at most
	// limits.max_client_requests_in_flight (more is the host's stream.request-flood violation):
	// a request takes one before it is written, the host's reply gives it back.
	callSlots chan struct{}
	// handlers counts the event handlers running (guarded by mu): at most
	// limits.client_handler_concurrency plus one per client request that waits for the host (in
	// flight, callSlots, or waiting for a slot, slotWaiters), so that handlers waiting for the host
	// never keep the reader from reading the replies they wait for. The reading goroutine waits
	// for a place before it starts a handler (and reads nothing meanwhile: backpressure);
	// handlerFree wakes it (one token: only the reading goroutine waits on it).
	handlers    int
	slotWaiters int
	handlerFree chan struct{}
	nextID      uint64
	closed      chan struct{}

	// The reader: one goroutine at a time reads frames (see readLoop). turn is the event whose
	// handler runs on the reading goroutine, nil when none does.
	ctx        context.Context
	frames     *FrameReader
	handler    Handler
	readerDone chan int
	turn       atomic.Pointer[readTurn]
	// The grace watchdog (see watchGrace): turns counts the turns started on the reading goroutine,
	// so that the watchdog sees whether any began since its last look; watchParked is set while
	// the watchdog waits on watchWake for the next turn.
	turns       atomic.Uint64
	watchParked atomic.Bool
	watchWake   chan struct{}
}

// eventKey identifies a delivered request for EventDone.
type eventKey struct{ eventID, invocationID string }

// inflight is one host request being handled. done and cancelled are guarded by streamConn.mu.
type inflight struct {
	// done is closed once the event is cancelled; it is made by the first EventDone (most
	// handlers never ask for it).
	done      chan struct{}
	cancelled bool
	key       eventKey
	// turn is the event's turn on the reading goroutine (see startEvent).
	turn readTurn
}

// active is the stream this process serves, if any: the command helpers route over it.
var active atomic.Pointer[streamConn]

// EventDone returns a channel that is closed when the host cancels the event of req (its cancel
// notification) or the stream ends. Outside stream mode, or for a request that is not being
// handled, it returns nil (a channel that is never ready). A handler may select on it to stop
// early; either way the runner never replies to a cancelled event.
func EventDone(req CallbackRequest) <-chan struct{} {
	c := active.Load()
	if c == nil {
		return nil
	}
	c.mu.Lock()
	f, ok := c.byReq[eventKey{req.EventID, req.InvocationID}]
	var done chan struct{}
	if ok {
		done = f.doneLocked()
	}
	c.mu.Unlock()
	if !ok {
		return nil
	}
	// A handler that waits for its cancel needs the frames read meanwhile.
	c.yieldReading(&f.turn)
	return done
}

// doneLocked returns the event's done channel, made on first use (closed at once when the event
// is already cancelled). c.mu is held.
func (e *inflight) doneLocked() chan struct{} {
	if e.done == nil {
		e.done = make(chan struct{})
		if e.cancelled {
			close(e.done)
		}
	}
	return e.done
}

// cancelLocked marks the event cancelled and closes its done channel if it was made. c.mu is held.
func (e *inflight) cancelLocked() {
	if e.cancelled {
		return
	}
	e.cancelled = true
	if e.done != nil {
		close(e.done)
	}
}

// close ends the stream: pending client requests fail with ErrStreamClosed, in-flight events
// (requests and notifications alike) count as cancelled.
func (c *streamConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closed:
		return
	default:
	}
	close(c.closed)
	for _, f := range c.events {
		f.cancelLocked()
	}
	// Events delivered as notifications have no id, so only byReq knows them; their EventDone
	// channels close too.
	for _, f := range c.byReq {
		f.cancelLocked()
	}
}

// dispatch handles one frame; it returns true when reading moved to another goroutine meanwhile.
func (c *streamConn) dispatch(ctx context.Context, f *streamFrame, handler Handler, r *reading) bool {
	switch f.kind {
	case frameRequest, frameNotification:
		// An unknown event kind is an unknown method (-32601), whatever its params carry.
		if event, ok := eventKind(f.method); ok {
			return c.startEvent(ctx, f, event, handler, r)
		}
		if f.kind == frameNotification {
			if f.method == SpecStreamV2.Cancel.Method {
				c.cancel(f)
			} else {
				c.logf("ignoring notification %q (unknown method)", f.method)
			}
			return false
		}
		c.logf("answering request %q with %d (unknown method)", f.method, rpcMethodNotFound)
		return c.writeOnTurn(errorFrame(f.id, rpcMethodNotFound, fmt.Sprintf("method not found: %s", f.method)), r)
	default:
		c.mu.Lock()
		reply, ok := c.calls[idKey(f.id)]
		delete(c.calls, idKey(f.id))
		c.mu.Unlock()
		if !ok {
			c.logf("discarding a reply to id %s, which no pending request has", writeNode(nil, f.id))
			return false
		}
		<-c.callSlots // answered: the host no longer counts it
		if f.kind == frameSuccess {
			reply <- callReply{result: f.result}
		} else {
			var data any
			if f.data != nil {
				data = f.data.toAny()
			}
			reply <- callReply{err: &RPCError{Code: f.code, Message: f.msg, Data: data}}
		}
	}
	return false
}

// cancelTarget is the id a cancel notification's params name ({"id": <id of a host request>}),
// or nil when it names no valid id.
func cancelTarget(f *streamFrame) *node {
	if f.params == nil {
		return nil
	}
	if id, _ := f.params.get("id"); id != nil && checkID(id) == nil {
		return id
	}
	return nil
}

// cancel handles the cancel notification: params {"id": <id of a host request>}.
func (c *streamConn) cancel(f *streamFrame) {
	id := cancelTarget(f)
	if id == nil {
		c.logf("ignoring a cancel notification without a valid params.id")
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.events[idKey(id)]; ok {
		e.cancelLocked()
	}
}

// startEvent handles one event request (or notification) on the reading goroutine: reading moves
// to a new goroutine when the handler is still running after inlineHandlerGrace or waits for the
// host, so handlers of other events and the frames the handler waits for are served meanwhile.
// It returns true when reading moved. r is the spell of reading this goroutine is in.
func (c *streamConn) startEvent(ctx context.Context, f *streamFrame, event string, handler Handler, r *reading) bool {
	params, hasParams := f.eventParams()
	e := &inflight{}
	var key rpcID
	if f.id != nil {
		key = idKey(f.id)
		c.mu.Lock()
		if _, busy := c.events[key]; busy {
			c.mu.Unlock()
			return c.writeOnTurn(errorFrame(f.id, rpcInvalidRequest, "id is already in use by a request being handled"), r)
		}
		c.events[key] = e
		c.mu.Unlock()
	}
	if !c.takeHandlerPlace(ctx) {
		return true // the stream is over: ServeStreamIO has returned, nothing more is read
	}
	defer c.giveHandlerPlace()
	t := &e.turn
	t.start = r.read
	c.beginTurn(t)
	var head []byte
	if f.id != nil {
		head = appendSuccessHead(r.reply[:0], f.id)
	}
	func() {
		response, frame := c.answerEvent(event, params, hasParams, e, handler, head)
		c.mu.Lock()
		if f.id != nil {
			delete(c.events, key)
		}
		if c.byReq[e.key] == e {
			delete(c.byReq, e.key)
		}
		cancelled := e.cancelled
		c.mu.Unlock()
		// A cancel the host wrote together with the request is already in the reader's buffer
		// when a quick handler returns: look at it before replying (the client.stream-cancel
		// SHOULD). Only while reading has not moved on, so the buffer is this goroutine's; the
		// turn is held (turnDone) while the buffer is looked at, then given back to the watchdog
		// for the write: a host that stops reading stdout blocks the write, and reading must
		// still move on so that stdin EOF is seen (stream_client_exit_ms).
		if f.id != nil && !cancelled && t.state.CompareAndSwap(turnInline, turnDone) {
			cancelled = c.cancelBuffered(f.id)
			t.state.Store(turnInline)
		}
		switch {
		case f.id == nil:
		case cancelled:
			c.logf("event %s was cancelled; its reply is not sent", event)
		default:
			frame = c.replyFrame(f.id, response, frame)
			c.write(frame)
			if cap(frame) <= keptReplyBytes {
				r.reply = frame[:0] // the writer keeps no frame, and this spell builds one at a time
			}
		}
	}()
	c.endTurn(t)
	return !t.state.CompareAndSwap(turnInline, turnDone)
}

// takeHandlerPlace waits, on the reading goroutine, until fewer than
// limits.client_handler_concurrency handlers (plus one per client request waiting for the host) run, and
// counts one more; false when the stream ended meanwhile. Nothing is read while it waits.
func (c *streamConn) takeHandlerPlace(ctx context.Context) bool {
	for {
		c.mu.Lock()
		if c.handlers < LimitClientHandlerConcurrency+len(c.callSlots)+c.slotWaiters {
			c.handlers++
			c.mu.Unlock()
			return true
		}
		c.mu.Unlock()
		select {
		case <-c.handlerFree:
		case <-c.closed:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// giveHandlerPlace counts a handler as returned and wakes the reading goroutine if it waits.
func (c *streamConn) giveHandlerPlace() {
	c.mu.Lock()
	c.handlers--
	c.mu.Unlock()
	c.wakeHandlerWaiter()
}

// wakeHandlerWaiter leaves the reading goroutine a token to look at the handler count again.
func (c *streamConn) wakeHandlerWaiter() {
	select {
	case c.handlerFree <- struct{}{}:
	default: // a token is already there
	}
}

// eventParams are the params of an event request, kept so that they can be decoded after reading
// moved on (see startEvent): the tree parseFrame built along the DispatchEnvelope schema, or a
// copy of the bytes the host wrote.
type eventParams struct {
	tree       *node
	nonInteger int
	raw        []byte
}

// eventParams returns the params of f as eventParams, false when f has none. The tree is used
// when it is all a v1 document's parse would have given: params within DefaultDocumentLimits'
// bytes and values (its depth is bounded by frameLimits), of a wire version that shares current's
// shapes (the frame was parsed along current's schemas); otherwise the bytes are kept, copied
// because the reader reuses its buffer, and judged as v1 judges stdin.
func (f *streamFrame) eventParams() (eventParams, bool) {
	if f.params == nil {
		return eventParams{}, false
	}
	at := f.paramsAt
	if at.envelope && len(at.raw) <= DefaultDocumentLimits.MaxBytes && at.values <= DefaultDocumentLimits.MaxValues && treeJudgeable(f.params) {
		return eventParams{tree: f.params, nonInteger: at.nonInteger}, true
	}
	return eventParams{raw: append([]byte(nil), at.raw...)}, true
}

// decode is decodeDispatchIn of the params' bytes: the same envelope, version and error. The
// document inside the frame is judged by its own version (the default window); the frame itself
// was judged by current's framing.
func (ep eventParams) decode() (DispatchEnvelope, string, error) {
	if ep.tree == nil {
		return decodeDispatchIn(ep.raw)
	}
	carried, err := checkParsed(dispatchEnvelopeType, ep.tree, ep.nonInteger)
	if err != nil {
		return DispatchEnvelope{}, carried, err
	}
	return decodeDispatchEnvelope(ep.tree), carried, nil
}

// answerEvent decodes params as a DispatchEnvelope and runs the handler, as the v1 runner does,
// on the event's goroutine (no second goroutine per event: the stream's context only ends when
// the whole process does). When the handler's response was valid, the bytes are head (the start
// of the reply frame, appendSuccessHead) followed by the encoded response; nil otherwise (a
// response over limits.max_response_bytes is replaced as v1 replaces it).
func (c *streamConn) answerEvent(event string, params eventParams, hasParams bool, e *inflight, handler Handler, head []byte) (CallbackResponse, []byte) {
	if !hasParams {
		return c.refuse(WireVersion, RuleSchemaRequired, "the request has no params (a DispatchEnvelope)"), nil
	}
	envelope, carried, err := params.decode()
	envelope, refusal := dispatchOrRefusal(envelope, answerVersion(carried), err, c.logf)
	if refusal != nil {
		return *refusal, nil
	}
	version := envelope.SchemaVersion
	if string(envelope.Request.Event) != event {
		return c.refuse(version, runnerInvalidRequestCode, fmt.Sprintf("method event/%s does not match params.request.event %q", event, envelope.Request.Event)), nil
	}
	e.key = eventKey{envelope.Request.EventID, envelope.Request.InvocationID}
	c.mu.Lock()
	c.byReq[e.key] = e
	c.mu.Unlock()
	response, frame := checkedResponse(head, callHandler(envelope, handler, c.logf), version, c.logf)
	if size := len(frame) - len(head); frame != nil && size > LimitMaxResponseBytes {
		return responseTooLarge(size, version, c.logf), nil // as v1: the host bounds each result alike
	}
	return response, frame
}

// refuse is the failed response (in version) to a request the runner does not hand to the handler.
func (c *streamConn) refuse(version, code, message string) CallbackResponse {
	c.logf("rejecting the request: %s: %s", code, message)
	return failedWithWarning(version, runnerRejectClass, code, message)
}

// replyFrame is the reply frame to id, replacing a response that cannot be written; started, when
// not nil, is the frame up to and with response already validated and encoded (see answerEvent).
// response is in the version to answer in (answerEvent's), and so is a replacement.
func (c *streamConn) replyFrame(id *node, response CallbackResponse, started []byte) []byte {
	frame := started
	if frame == nil {
		data, err := encodeAnswer(response)
		if err != nil {
			c.logf("internal: the runner built an invalid response: %v", err)
			data, _ = encodeAnswer(failedIn(response.SchemaVersion, runnerHandlerClass))
		}
		frame = append(appendSuccessHead(nil, id), data...)
	}
	frame = append(frame, "}\n"...)
	if len(frame)-1 > LimitMaxFrameBytes {
		message := fmt.Sprintf("the reply frame is %d bytes, over the maximum frame size (%d bytes)", len(frame)-1, LimitMaxFrameBytes)
		c.logf("the handler's response is invalid: %s", message)
		data, _ := encodeAnswer(failedWithWarning(response.SchemaVersion, runnerHandlerClass, RuleStreamFrameTooLarge, message))
		frame = successFrame(id, data)
	}
	return frame
}

// write sends one frame; after the first failure (the host closed its end) frames are dropped.
func (c *streamConn) write(frame []byte) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.broken {
		return
	}
	if _, err := c.out.Write(frame); err != nil {
		c.broken = true
		c.logf("cannot write to stdout, dropping further frames: %v", err)
	}
}
