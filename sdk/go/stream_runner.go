// The stream (v2) client runner, entry points: ServeStream, ServeStreamWith and ServeStreamIO
// (spec/stream-protocol.md). The session they run: stream_session.go (connection, dispatch, in-flight
// bound), stream_read.go (reading goroutine, grace watchdog), stream_calls.go (client->host calls).
// Framing: stream_reader.go and stream_frame.go. TypeScript twin: runtime/client/runner.ts.

package lifeloop

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
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
	ctx, stop := signal.NotifyContext(context.Background(), clientExitSignals()...)
	code := ServeStreamIO(ctx, in, out, os.Stderr, handler)
	stop()
	os.Exit(code)
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

// signalsByName maps the POSIX names a spec table may use for a signal to Go's values.
var signalsByName = map[string]syscall.Signal{
	"SIGHUP":  syscall.SIGHUP,
	"SIGINT":  syscall.SIGINT,
	"SIGQUIT": syscall.SIGQUIT,
	"SIGTERM": syscall.SIGTERM,
}

// clientExitSignals are the signals that end a stream client at once: the names of
// spec/tables/stream-v2.json shutdown.client_exit_signals (SpecStreamV2). It panics on a name
// signalsByName lacks (the table and this map disagree: a bug caught by the SDK's tests).
func clientExitSignals() []os.Signal {
	names := SpecStreamV2.Shutdown.ClientExitSignals
	out := make([]os.Signal, 0, len(names))
	for _, name := range names {
		sig, ok := signalsByName[name]
		if !ok {
			panic(fmt.Sprintf("spec/tables/stream-v2.json shutdown.client_exit_signals: unknown signal %q", name))
		}
		out = append(out, sig)
	}
	return out
}
