// The stream session's reading goroutine: reading turns, the read pace, the grace watchdog that
// moves reading on when a handler or a write blocks, and the cancel sweep of buffered frames.

package lifeloop

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync/atomic"
	"time"
)

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
				c.logf("framing violation: %s: %v", RuleStreamFrameTooLarge, err)
			case errors.Is(err, ErrTruncatedFrame):
				c.logf("framing violation: %s: %v", RuleStreamUnterminatedFrame, err)
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
