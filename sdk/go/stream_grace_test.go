// The stream runner's exit at stdin EOF and its grace watchdog (reading moves on while a handler
// or a reply write blocks). Each test here failed before the fix it names.

package lifeloop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// streamExitBound is limits.stream_client_exit_ms as a duration.
const streamExitBound = LimitStreamClientExitMs * time.Millisecond

// closeAndExpectExit ends the runner's stdin and checks that it returns 0 within
// stream_client_exit_ms (what says in which situation).
func closeAndExpectExit(t *testing.T, stdin io.Closer, code <-chan int, what string) {
	t.Helper()
	closed := time.Now()
	stdin.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("%s: exit %d, want 0", what, c)
		}
		if elapsed := time.Since(closed); elapsed > streamExitBound {
			t.Fatalf("%s: returned %v after stdin EOF, over stream_client_exit_ms", what, elapsed)
		}
	case <-time.After(streamExitBound + 500*time.Millisecond):
		t.Fatalf("%s: the runner did not return within stream_client_exit_ms of stdin EOF", what)
	}
}

// A reply whose write blocks (a host that stopped reading stdout) must not keep the runner from
// seeing stdin EOF: the runner exits within stream_client_exit_ms of EOF, as it does while a
// handler runs. Before the fix the reading goroutine claimed its turn before the write, so the
// grace watchdog could not move reading on and EOF was never read.
func TestStreamExitsAtEOFWhileAReplyWriteBlocks(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe() // never read: the first reply's Write blocks
	defer outR.Close()
	handled := make(chan struct{})
	var once sync.Once
	code := make(chan int, 1)
	go func() {
		code <- ServeStreamIO(context.Background(), inR, outW, io.Discard, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
			once.Do(func() { close(handled) })
			return echoHandler(req, payloads)
		})
	}()
	go func() { _, _ = io.WriteString(inW, eventFrame(`"h1"`)+"\n") }()
	select {
	case <-handled:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler was not called within 5 s")
	}
	// The handler returned (or is about to): its reply is being written into a pipe nobody reads.
	closeAndExpectExit(t, inW, code, "while a reply write blocked")
}

// The grace watchdog parks on an idle stream even while a handler that already moved reading on
// (it waits for its cancel) keeps running. Before the fix the yielded turn stayed the watchdog's
// current turn until the handler returned, so the watchdog woke every inlineHandlerGrace for as
// long as the handler waited (500 wake-ups per second on an idle stream).
func TestStreamGraceWatchdogParksWhileAYieldedHandlerWaits(t *testing.T) {
	waiting := make(chan struct{})
	p := startStream(t, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		done := EventDone(req)
		close(waiting)
		<-done
		return echoHandler(req, payloads)
	})
	p.send(eventFrame(`"h1"`))
	<-waiting
	c := active.Load()
	for deadline := time.Now().Add(5 * time.Second); !c.watchParked.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the grace watchdog did not park within 5 s while the only handler waits for its cancel")
		}
	}
	// Parked, it still wakes for the next turn: a quick event is answered, the waiting one is not.
	p.send(eventFrame(`"h2"`))
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h2","result":`) {
		t.Fatalf("reply %s, want h2's", reply)
	}
	p.send(`{"jsonrpc":"2.0","method":"` + SpecStreamV2.Cancel.Method + `","params":{"id":"h1"}}`)
	p.in.Close()
	if code := p.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// oneByteReader hands its reader's bytes over one per Read.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// With GOMAXPROCS=1, frames arriving one byte at a time, and a handler that computes on the
// reading goroutine without asking for its cancel: the runner still reads the cancel for that
// event while it runs (no reply to it), answers the next event, and returns within
// stream_client_exit_ms of stdin EOF while another such handler is still computing.
func TestStreamSpinningHandlerOneByteAtATime(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stop := make(chan struct{})
	defer close(stop)
	spinning := make(chan string, 4)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- ServeStreamIO(context.Background(), oneByteReader{inR}, outW, io.Discard, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
			if req.EventID == "evt-wait" {
				spinning <- req.InvocationID
				for {
					select {
					case <-stop:
						return echoHandler(req, payloads)
					default:
					}
					// Its own event only: h1's goroutine may not yet have removed h1 (cancelled)
					// from the stream's events while h3's handler spins (GOMAXPROCS=1).
					if c := active.Load(); c != nil {
						c.mu.Lock()
						e := c.byReq[eventKey{req.EventID, req.InvocationID}]
						cancelled := e != nil && e.cancelled
						c.mu.Unlock()
						if cancelled {
							return echoHandler(req, payloads) // its reply must not be sent
						}
					}
				}
			}
			return echoHandler(req, payloads)
		})
		outW.Close()
	}()
	frames := make(chan string, 8)
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(frames)
				return
			}
			frames <- line
		}
	}()
	go func() { _, _ = io.WriteString(inW, waitFrame(`"h1"`)+"\n") }()
	<-spinning
	// From one goroutine, in order: the cancel for h1 (read while its handler computes), then h2.
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"`+SpecStreamV2.Cancel.Method+`","params":{"id":"h1"}}`+"\n")
		_, _ = io.WriteString(inW, eventFrame(`"h2"`)+"\n")
	}()
	select {
	case line := <-frames:
		if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":"h2","result":`) {
			t.Fatalf("first frame %s, want h2's reply", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reply to h2 within 10 s")
	}
	// A second computing handler, then EOF while it runs.
	go func() {
		_, _ = io.WriteString(inW, strings.Replace(waitFrame(`"h3"`), `"invocation_id":"i1"`, `"invocation_id":"i3"`, 1)+"\n")
	}()
	<-spinning
	closeAndExpectExit(t, inW, code, "while a handler computes")
	for line := range frames {
		t.Errorf("a frame after h2's reply (h1 was cancelled, h3 never returned): %s", line)
	}
}

// The error replies the reading goroutine writes itself (an unknown method, a duplicate id) do
// not keep stdin EOF unread either when their write blocks: the runner returns within
// stream_client_exit_ms. Before the fix the reading goroutine was stuck in the write.
func TestStreamExitsAtEOFWhileAnErrorReplyWriteBlocks(t *testing.T) {
	for _, frames := range []string{
		`{"jsonrpc":"2.0","id":"x","method":"nope/nothing"}` + "\n",
		`{"jsonrpc":"2.0","id":"x","method":"event/no.such-kind","params":{}}` + "\n",
	} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe() // never read
		code := make(chan int, 1)
		go func() { code <- ServeStreamIO(context.Background(), inR, outW, io.Discard, echoHandler) }()
		if _, err := io.WriteString(inW, frames); err != nil {
			t.Fatal(err)
		}
		// The frame was read (the pipe's write returned); its reply is being written.
		closeAndExpectExit(t, inW, code, fmt.Sprintf("%q: while an error reply's write blocked", frames))
		outR.Close()
	}
}
