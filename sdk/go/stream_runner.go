package lifeloop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// StreamRequested reports whether args (os.Args[1:]) hold the stream flag of
// spec/tables/stream-v2.json (launch.flag, "--stream"): a host spawns a stream client once with
// its configured args followed by that flag.
func StreamRequested(args []string) bool {
	for _, a := range args {
		if a == SpecStreamV2.Launch.Flag {
			return true
		}
	}
	return false
}

// ServeStream makes the current process a stream-mode client (transport stream_v2,
// spec/stream-protocol.md) and exits when the stream ends: status 0 at stdin EOF or on SIGTERM,
// SIGINT or SIGHUP (at once, running handlers are not awaited), 1 when the host broke the framing.
//
// stdout is reserved for frames: before serving, the wire's stdin and stdout are moved to private
// descriptors, fd 1 is pointed at stderr and fd 0 at /dev/null, so neither a stray print (fmt.Print,
// a C library, a child process inheriting fd 1) nor a child reading stdin can touch the wire.
// See ServeStreamIO for the protocol.
func ServeStream(handler Handler) {
	ServeStreamWith(handler, StreamOptions{})
}

// StreamOptions adjusts ServeStreamWith. The zero value is ServeStream.
type StreamOptions struct {
	// WrapWire, when set, is given the wire's private descriptors after the diversion and returns
	// what the runner reads frames from and writes frames to: a tap for tracing frames, or a test
	// double that misbehaves on purpose. The runner writes each frame with one Write call, and
	// reuses the bytes of a reply for the next one once Write returned: as io.Writer says, Write
	// must not keep p (copy it to trace it later).
	WrapWire func(wireIn, wireOut *os.File) (io.Reader, io.Writer)
}

// ServeStreamWith is ServeStream with options.
func ServeStreamWith(handler Handler, opts StreamOptions) {
	wireIn, wireOut := divertStdio()
	var in io.Reader = wireIn
	var out io.Writer = wireOut
	if opts.WrapWire != nil {
		in, out = opts.WrapWire(wireIn, wireOut)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	code := ServeStreamIO(ctx, in, out, os.Stderr, handler)
	stop()
	os.Exit(code)
}

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

// readTurn is one event handled on the reading goroutine: state turnInline while its handler runs
// (or its reply is written) there and that goroutine still owns reading, turnYielded once reading
// moved to a new goroutine, turnDone once the handler returned and the reply was written first
// (the goroutine then reads on; also while it looks at its buffer for a cancel). start is when
// its frame was read (set before the turn is published, then only read).
type readTurn struct {
	state atomic.Int32
	start time.Time
}

const (
	turnInline int32 = iota
	turnYielded
	turnDone
)

// inlineHandlerGrace is how long a handler runs on the reading goroutine before reading moves to a
// new goroutine (so other frames, cancels included, are read while it runs): at least one and at
// most two of these periods from the turn's start (see watchGrace). A handler that waits for the
// host (a command helper, EventDone) moves reading at once. Most handlers return well within it,
// and an event then costs no goroutine, no timer and no thread wake-up of its own.
//
// The period is a trade between the watchdog's wake-ups, paid under every steady stream, and how
// long a handler that computes without asking for its cancel holds up the frames behind it (at most
// two periods). Measured on the stream benchmark's pipes (go-echo, about 9,000 events/s, machine
// loaded): client context switches per event 1.20 with a 1 ms period, 1.13 with 2 ms, 1.11 with
// 4 ms and 1.08 with no watchdog at all; client CPU per event 1 to 2.5 µs lower with 2 ms than with
// 1 ms. 2 ms keeps most of that saving and the hold-up within 4 ms.
const inlineHandlerGrace = 2 * time.Millisecond

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

// reading is one goroutine's spell of reading frames (readLoop): the parser of its frames (whose
// memory the next frame reuses), the decoded frame (reused likewise: nothing keeps a frame once it
// is handled, only, for a reply, its result) and the buffer its replies are built in. Every yield
// starts a new spell on a new goroutine, so nothing here is shared with the goroutine that reading
// moved away from.
type reading struct {
	conn   *streamConn
	parser parser
	frame  streamFrame
	reply  []byte
	// read is when the frame being dispatched was read (the start of its turn, if it is an event).
	read time.Time
}

// readPace is how long, at most, the reading goroutine keeps its P (the Go scheduler's processor)
// without a pass through the scheduler (runtime.Gosched) while frames keep coming. It waits in
// read(2) holding its P (see divertStdio), and a goroutine that has not been rescheduled for
// 10 ms (the runtime's forcePreemptNS) has its P taken from the system call by the runtime's
// monitor thread, sysmon, with a preemption signal; each such retake also sends sysmon back to
// polling every 20 µs for about a millisecond. Under a steady stream of events that cost about
// 0.9 sysmon wake-ups and 0.01 signals per event (strace of go-echo on the stream benchmark's
// pipes: 6,931 nanosleep and 93 tgkill calls per 8,100 events; 439 and 6 with this pace). A pass
// every readPace keeps the scheduler tick moving; it costs one time read per frame and at most one
// scheduler round (and one wake-up of an idle thread) per period.
const readPace = 4 * time.Millisecond

// keptReplyBytes bounds the buffer a spell of reading keeps for its next reply (a larger reply's
// buffer is left to the collector).
const keptReplyBytes = 64 << 10

// beginTurn makes t the turn on the reading goroutine and lets the grace watchdog know (waking it
// when it is parked). Per event it costs a few atomic operations: no timer is armed or stopped,
// which would cost a timer-heap update and often a thread wake-up in the Go scheduler (measured on
// the stream benchmark's pipes: the per-event timer's Reset and Stop, and the idle thread it woke
// into the network poller, were among the runner's larger costs).
func (c *streamConn) beginTurn(t *readTurn) {
	c.turn.Store(t)
	c.turns.Add(1)
	if c.watchParked.Load() && c.watchParked.CompareAndSwap(true, false) {
		c.watchWake <- struct{}{} // the only token: set again only by the watchdog, after it took this one
	}
}

// endTurn ends turn t on the reading goroutine (a no-op when another turn already replaced it).
func (c *streamConn) endTurn(t *readTurn) { c.turn.CompareAndSwap(t, nil) }

// watchGrace is the grace watchdog, one goroutine per stream. At each look it finds the turn on
// the reading goroutine, if any, and moves reading on (yieldReading) when that turn started at
// least inlineHandlerGrace ago; otherwise it looks again when the turn it found would reach that
// age, or, when it found none, two periods later: a turn that begins after a look is at most two
// periods old at the next one, and one still short of a period then is looked at again when it
// reaches it. So a handler keeps the reading goroutine for at least one and at most about two
// periods. When it finds no turn and none began since its last look, it parks until the next turn
// begins, so an idle stream costs no wake-ups; under a steady stream of short events it wakes
// about once per two periods, whatever the event rate (each wake-up costs the process a thread
// wake-up and a pass of the Go scheduler, more than the per-event work of beginTurn). It returns
// when the stream is closed.
func (c *streamConn) watchGrace() {
	timer := time.NewTimer(inlineHandlerGrace)
	defer timer.Stop()
	lastCount := c.turns.Load()
	for {
		select {
		case <-timer.C:
		case <-c.closed:
			return
		}
		t, count := c.turn.Load(), c.turns.Load()
		next := 2 * inlineHandlerGrace
		switch {
		case t != nil:
			next = inlineHandlerGrace
			if age := time.Since(t.start); age >= inlineHandlerGrace {
				c.yieldReading(t)
			} else {
				next -= age
			}
		case count == lastCount:
			c.watchParked.Store(true)
			// A turn that began before the flag was set did not see it: look once more.
			if c.turn.Load() != nil || c.turns.Load() != lastCount {
				if !c.watchParked.CompareAndSwap(true, false) {
					<-c.watchWake // a turn took the flag and sent its token meanwhile
				}
				next = 0
				break
			}
			select {
			case <-c.watchWake:
			case <-c.closed:
				return
			}
			next = inlineHandlerGrace
		}
		lastCount = c.turns.Load()
		timer.Reset(next)
	}
}

// callReply is the host's answer to a client request: result, or an *RPCError.
type callReply struct {
	result *node
	err    *RPCError
}

// RPCError is a JSON-RPC error reply the host sent to a client request (CALLBACK-001 §C).
// Code is the JSON-RPC error code (spec/tables/stream-error-codes.json), Message its text, Data the
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

// ServeStreamIO is the stream-mode loop over explicit streams; it returns the exit status.
//
//   - Frames are read with a FrameReader bounded at the maximum frame size and decoded strictly
//     (decodeFrame); a violation is logged with its rule id, nothing more is read and it returns 1.
//   - A request `event/<kind>` is answered with exactly one reply whose result is the
//     CallbackResponse the v1 runner would write for the same DispatchEnvelope (params); the same
//     refusals apply (failed, with the warning codes of ServeIO). Handlers run concurrently: a
//     handler starts on the reading goroutine, and reading moves to a new goroutine once it has
//     run for inlineHandlerGrace or waits for the host (EventDone, a command helper). At most
//     limits.client_handler_concurrency handlers run at once (plus one per client request that
//     waits for the host); while that many run, no further frame is read (backpressure).
//   - A notification is never answered. The cancel notification marks its event cancelled: its
//     EventDone channel closes and its reply is never written.
//   - A request for any other method gets error -32601. Replies to the client's own requests
//     (the command helpers) are matched by id, type and value exactly; any other reply is logged
//     and discarded.
//   - At stdin EOF it returns 0 at once, and when ctx ends too; running handlers are not awaited
//     (a client exits within limits.stream_client_exit_ms).
//
// Writes are serialized, one frame per Write call, so frames never interleave.
func ServeStreamIO(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, handler Handler) int {
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(stderr, "lifeloop: "+format+"\n", args...)
	}
	c := &streamConn{out: stdout, logf: logf, events: map[rpcID]*inflight{}, byReq: map[eventKey]*inflight{}, calls: map[rpcID]chan callReply{}, closed: make(chan struct{})}
	c.ctx, c.frames, c.handler, c.readerDone = ctx, NewFrameReader(stdin, LimitMaxFrameBytes), handler, make(chan int, 1)
	c.watchWake = make(chan struct{}, 1)
	c.callSlots = make(chan struct{}, LimitMaxClientRequestsInFlight)
	c.handlerFree = make(chan struct{}, 1)
	active.Store(c)
	defer active.CompareAndSwap(c, nil)
	readerDone := c.readerDone
	go c.watchGrace()
	go c.read()
	// At stdin EOF (or a violation) the runner returns at once: running handlers are not awaited
	// (spec/stream-protocol.md §Shutdown, stream_client_exit_ms); their replies could not be read.
	var code int
	select {
	case code = <-readerDone:
	case <-ctx.Done():
	}
	c.close()
	return code
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

// read runs readLoop on this goroutine and reports its status, unless reading moved on.
func (c *streamConn) read() {
	if code, yielded := c.readLoop(); !yielded {
		c.readerDone <- code
	}
}

// yieldReading moves reading to a new goroutine when a handler runs on the reading one (t, or
// whichever runs there now when t is nil); a no-op otherwise.
func (c *streamConn) yieldReading(t *readTurn) {
	if t == nil {
		t = c.turn.Load()
	}
	if t != nil && t.state.CompareAndSwap(turnInline, turnYielded) {
		// t is no longer the reading goroutine's turn: cleared before the next reader can begin
		// one, so the watchdog parks on an idle stream while t's handler still runs (a handler
		// waiting for its cancel or for the host would otherwise wake it every period).
		c.turn.CompareAndSwap(t, nil)
		go c.read()
	}
}

// readLoop reads and dispatches frames until EOF (0) or a violation (1); yielded is true when
// an event handled on this goroutine moved reading to another one (which then reports the status).
// Only one goroutine reads at a time: the next reader starts only after this one stopped.
//
// Each frame's tree is cut from the memory of the spell's parser (see reading), reused for the next
// frame when nothing holds on to the tree once the frame is handled: every frame but a reply, whose
// result goes to the waiting command helper.
func (c *streamConn) readLoop() (code int, yielded bool) {
	ctx, frames, handler := c.ctx, c.frames, c.handler
	r := &reading{conn: c}
	paced := time.Now()
	for {
		line, err := frames.Next()
		r.read = time.Now()
		if r.read.Sub(paced) >= readPace {
			runtime.Gosched()
			paced = r.read
		}
		if err != nil {
			var tooLarge *FrameTooLargeError
			switch {
			case errors.Is(err, io.EOF):
				return 0, false
			case errors.As(err, &tooLarge):
				c.logf("framing violation: %s: %v", ruleStreamFrameTooLarge, err)
			case errors.Is(err, ErrTruncatedFrame):
				c.logf("framing violation: %s: %v", ruleStreamUnterminatedFrame, err)
			default:
				c.logf("cannot read stdin: %v", err)
			}
			return 1, false
		}
		f, violation := decodeFrame(line, &r.parser, &r.frame)
		if violation != nil {
			c.logf("framing violation: %s", violation)
			return 1, false
		}
		if c.dispatch(ctx, f, handler, r) {
			return 0, true
		}
		if f.kind == frameSuccess || f.kind == frameError {
			r.parser.mem = nodeArena{}
		} else {
			r.parser.mem.reset()
		}
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

// writeOnTurn writes a frame the reading goroutine answers itself (an error reply) as a turn of
// its own, so that a write blocked by a host that stopped reading stdout has reading moved on by
// the grace watchdog, as an event's reply has: stdin EOF is still seen. It returns true when
// reading moved.
func (c *streamConn) writeOnTurn(frame []byte, r *reading) bool {
	t := &readTurn{start: r.read}
	c.beginTurn(t)
	c.write(frame)
	c.endTurn(t)
	return !t.state.CompareAndSwap(turnInline, turnDone)
}

// cancelBuffered reports whether the complete frames in the reader's buffer hold a cancel
// notification for id. They are only looked at: readLoop still reads and handles each of them
// (the cancel then finds no event and is a no-op). Call it only on the reading goroutine.
func (c *streamConn) cancelBuffered(id *node) bool {
	buf := c.frames.Buffered()
	if !bytes.Contains(buf, cancelMethodBytes) {
		return false
	}
	want := idKey(id)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return false
		}
		line := buf[:i]
		buf = buf[i+1:]
		if !bytes.Contains(line, cancelMethodBytes) {
			continue
		}
		f, violation := decodeFrame(line, nil, nil)
		if violation != nil || f.kind != frameNotification || f.method != SpecStreamV2.Cancel.Method {
			continue
		}
		if target := cancelTarget(f); target != nil && idKey(target) == want {
			return true
		}
	}
}

// cancelMethodBytes is the cancel method's name, searched for in raw frames.
var cancelMethodBytes = []byte(SpecStreamV2.Cancel.Method)

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
// bytes and values (its depth is bounded by frameLimits); otherwise the bytes are kept, copied
// because the reader reuses its buffer, and judged as v1 judges stdin.
func (f *streamFrame) eventParams() (eventParams, bool) {
	if f.params == nil {
		return eventParams{}, false
	}
	at := f.paramsAt
	if at.envelope && len(at.raw) <= DefaultDocumentLimits.MaxBytes && at.values <= DefaultDocumentLimits.MaxValues {
		return eventParams{tree: f.params, nonInteger: at.nonInteger}, true
	}
	return eventParams{raw: append([]byte(nil), at.raw...)}, true
}

// decode is DecodeDispatchEnvelope of the params' bytes: the same envelope or the same error.
func (ep eventParams) decode() (DispatchEnvelope, error) {
	if ep.tree == nil {
		return DecodeDispatchEnvelope(ep.raw)
	}
	if err := checkParsed(dispatchEnvelopeType, ep.tree, ep.nonInteger); err != nil {
		return DispatchEnvelope{}, err
	}
	return decodeDispatchEnvelope(ep.tree), nil
}

// answerEvent decodes params as a DispatchEnvelope and runs the handler, as the v1 runner does,
// on the event's goroutine (no second goroutine per event: the stream's context only ends when
// the whole process does). When the handler's response was valid, the bytes are head (the start
// of the reply frame, appendSuccessHead) followed by the encoded response; nil otherwise (a
// response over limits.max_response_bytes is replaced as v1 replaces it).
func (c *streamConn) answerEvent(event string, params eventParams, hasParams bool, e *inflight, handler Handler, head []byte) (CallbackResponse, []byte) {
	if !hasParams {
		return c.refuse(RuleSchemaRequired, "the request has no params (a DispatchEnvelope)"), nil
	}
	envelope, err := params.decode()
	envelope, refusal := dispatchOrRefusal(envelope, err, c.logf)
	if refusal != nil {
		return *refusal, nil
	}
	if string(envelope.Request.Event) != event {
		return c.refuse(runnerInvalidRequestCode, fmt.Sprintf("method event/%s does not match params.request.event %q", event, envelope.Request.Event)), nil
	}
	e.key = eventKey{envelope.Request.EventID, envelope.Request.InvocationID}
	c.mu.Lock()
	c.byReq[e.key] = e
	c.mu.Unlock()
	response, frame := checkedResponse(head, callHandler(envelope, handler, c.logf), c.logf)
	if size := len(frame) - len(head); frame != nil && size > LimitMaxResponseBytes {
		return responseTooLarge(size, c.logf), nil // as v1: the host bounds each result alike
	}
	return response, frame
}

func (c *streamConn) refuse(code, message string) CallbackResponse {
	c.logf("rejecting the request: %s: %s", code, message)
	return failedWithWarning(runnerRejectClass, code, message)
}

// replyFrame is the reply frame to id, replacing a response that cannot be written; started, when
// not nil, is the frame up to and with response already validated and encoded (see answerEvent).
func (c *streamConn) replyFrame(id *node, response CallbackResponse, started []byte) []byte {
	frame := started
	if frame == nil {
		data, err := EncodeCallbackResponse(response)
		if err != nil {
			c.logf("internal: the runner built an invalid response: %v", err)
			data, _ = EncodeCallbackResponse(FailedResponse(runnerHandlerClass))
		}
		frame = append(appendSuccessHead(nil, id), data...)
	}
	frame = append(frame, "}\n"...)
	if len(frame)-1 > LimitMaxFrameBytes {
		message := fmt.Sprintf("the reply frame is %d bytes, over the maximum frame size (%d bytes)", len(frame)-1, LimitMaxFrameBytes)
		c.logf("the handler's response is invalid: %s", message)
		data, _ := EncodeCallbackResponse(failedWithWarning(runnerHandlerClass, ruleStreamFrameTooLarge, message))
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
