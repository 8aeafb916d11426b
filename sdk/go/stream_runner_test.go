package lifeloop

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// streamPeer drives ServeStreamIO over pipes as a host would.
type streamPeer struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	stderr strings.Builder
	code   chan int
}

func startStream(t *testing.T, handler Handler) *streamPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &streamPeer{t: t, in: inW, out: bufio.NewReader(outR), code: make(chan int, 1)}
	go func() {
		p.code <- ServeStreamIO(context.Background(), inR, outW, &lockedBuilder{b: &p.stderr}, handler)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

type lockedBuilder struct{ b *strings.Builder }

func (l *lockedBuilder) Write(p []byte) (int, error) { return l.b.Write(p) }

func (p *streamPeer) send(frame string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, frame+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

func (p *streamPeer) recv() string {
	p.t.Helper()
	line := make(chan string, 1)
	go func() {
		s, _ := p.out.ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		return strings.TrimSuffix(s, "\n")
	case <-time.After(5 * time.Second):
		p.t.Fatalf("no frame within 5 s")
	}
	return ""
}

func (p *streamPeer) exit() int {
	p.t.Helper()
	select {
	case code := <-p.code:
		return code
	case <-time.After(2 * time.Second):
		p.t.Fatalf("the runner did not return within 2 s")
	}
	return -1
}

func eventFrame(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"event/session.starting","params":` + runnerRequest + `}`
}

func TestStreamAnswersAndExitsAtEOF(t *testing.T) {
	p := startStream(t, echoHandler)
	p.send(eventFrame(`"h1"`))
	reply := p.recv()
	if !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h1","result":{"schema_version":"`+WireVersion+`","status":"delivered"`) {
		t.Fatalf("reply %s", reply)
	}
	p.send(eventFrame(`7`))
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":7,"result":`) {
		t.Fatalf("reply %s", reply)
	}
	p.in.Close()
	if code := p.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestStreamUnknownMethodAndCancel(t *testing.T) {
	release := make(chan struct{})
	first := true
	p := startStream(t, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		if first {
			first = false
			<-EventDone(req)
			close(release)
		}
		return echoHandler(req, payloads)
	})
	p.send(eventFrame(`"h1"`))
	p.send(`{"jsonrpc":"2.0","id":"h2","method":"nope/nothing"}`)
	if reply := p.recv(); reply != `{"jsonrpc":"2.0","id":"h2","error":{"code":-32601,"message":"method not found: nope/nothing"}}` {
		t.Fatalf("reply %s", reply)
	}
	p.send(`{"jsonrpc":"2.0","method":"` + SpecStreamV2.Cancel.Method + `","params":{"id":"h1","reason":"timeout"}}`)
	<-release
	p.send(eventFrame(`"h3"`))
	// h1 was cancelled: the next frame is h3's reply, never h1's.
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h3","result":`) {
		t.Fatalf("reply %s", reply)
	}
}

func TestStreamCancelInTheSameWriteAsAQuickRequest(t *testing.T) {
	// A handler that returns at once still sees a cancel that arrived in the same write
	// (conform's stream-cancel scenario): its reply is never sent.
	p := startStream(t, echoHandler)
	cancel := `{"jsonrpc":"2.0","method":"` + SpecStreamV2.Cancel.Method + `","params":{"id":"h1","reason":"timeout"}}`
	p.send(eventFrame(`"h1"`) + "\n" + cancel)
	p.send(eventFrame(`"h2"`))
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h2","result":`) {
		t.Fatalf("reply %s (want h2's: h1 was cancelled in the same write)", reply)
	}
	// A cancel for another id in the same write does not stop the reply.
	other := `{"jsonrpc":"2.0","method":"` + SpecStreamV2.Cancel.Method + `","params":{"id":"zz"}}`
	p.send(eventFrame(`"h3"`) + "\n" + other)
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h3","result":`) {
		t.Fatalf("reply %s", reply)
	}
	p.in.Close()
	if code := p.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestStreamFramingViolationEnds(t *testing.T) {
	for _, c := range []struct{ frame, rule string }{
		{"", "stream.empty-frame"},
		{"\r", "stream.empty-frame"},
		{"[]", "stream.batch"},
		{"hello", "json.syntax"},
		{`{"jsonrpc":"1.0","method":"x"}`, "stream.jsonrpc"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"x"}`, "stream.id"},
		{`{"jsonrpc":"2.0","id":"x","result":{},"error":{"code":1,"message":""}}`, "stream.frame-kind"},
	} {
		p := startStream(t, echoHandler)
		p.send(c.frame)
		if code := p.exit(); code != 1 {
			t.Fatalf("%q: exit %d", c.frame, code)
		}
		if want := "framing violation: " + c.rule + ":"; !strings.Contains(p.stderr.String(), want) {
			t.Fatalf("%q: stderr %q lacks %q", c.frame, p.stderr.String(), want)
		}
	}
}

func TestStreamToleratesOneCRBeforeLF(t *testing.T) {
	p := startStream(t, echoHandler)
	p.send(eventFrame(`"h1"`) + "\r")
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h1","result":`) {
		t.Fatalf("reply %s", reply)
	}
}

func TestStreamReverseRequest(t *testing.T) {
	p := startStream(t, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		_, err := Continuation.Put(context.Background(), "t1", "k1", []byte("hi"), nil)
		response := NewResponse(ReceiptStatusDelivered)
		response.Metadata = map[string]any{"put_error": err.Error()}
		return response, nil
	})
	p.send(eventFrame(`"h1"`))
	request := p.recv()
	if request != `{"jsonrpc":"2.0","id":"c1","method":"continuation/put","params":{"thread":"t1","key":"k1","blob_base64":"aGk="}}` {
		t.Fatalf("request %s", request)
	}
	p.send(`{"jsonrpc":"2.0","id":"c1","error":{"code":-32001,"message":"not available","data":{"error":"storage_failure","reason":"x"}}}`)
	if reply := p.recv(); !strings.Contains(reply, `"id":"h1"`) || !strings.Contains(reply, "storage_failure") {
		t.Fatalf("reply %s", reply)
	}
}

func TestStreamNeverRepliesToNotifications(t *testing.T) {
	p := startStream(t, echoHandler)
	p.send(`{"jsonrpc":"2.0","method":"event/session.starting","params":` + runnerRequest + `}`)
	p.send(`{"jsonrpc":"2.0","method":"lifeloop/cancel","params":{"id":"nobody","reason":"timeout"}}`)
	p.send(`{"jsonrpc":"2.0","method":"unknown/notification"}`)
	p.send(eventFrame(`"h9"`))
	// The first frame out is the request's reply: nothing answered the three notifications.
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h9","result":`) {
		t.Fatalf("reply %s", reply)
	}
}

// blockingHandler is echoHandler, except that the event evt-wait blocks until released is closed
// without waiting for the host (no EventDone, no command); after 5 s the test fails with why.
func blockingHandler(t *testing.T, released <-chan struct{}, why string) Handler {
	return func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		if req.EventID == "evt-wait" {
			select {
			case <-released:
			case <-time.After(5 * time.Second):
				t.Errorf("%s", why)
			}
		}
		return echoHandler(req, payloads)
	}
}

// waitFrame is the request with id id for the event evt-wait (see blockingHandler).
func waitFrame(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"event/session.starting","params":` + strings.Replace(runnerRequest, `"event_id":"e1"`, `"event_id":"evt-wait"`, 1) + `}`
}

// expectOvertaken checks that the reply to quick comes first, then releases the blocked event and
// checks that its reply follows (a barrier: were the quick handler to release it, the two replies
// would race for the pipe), and that the runner exits 0 at EOF.
func (p *streamPeer) expectOvertaken(quick, blocked string, released chan struct{}) {
	p.t.Helper()
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":`+quick+`,"result":`) {
		p.t.Fatalf("first reply %s, want %s's", reply, quick)
	}
	close(released)
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":`+blocked+`,"result":`) {
		p.t.Fatalf("second reply %s, want %s's", reply, blocked)
	}
	p.in.Close()
	if code := p.exit(); code != 0 {
		p.t.Fatalf("exit %d", code)
	}
}

// A handler that blocks without waiting for the host still lets the runner read on: the next
// event is read and answered while the first handler runs, whose own reply follows.
func TestStreamReadsOnWhileAHandlerBlocks(t *testing.T) {
	released := make(chan struct{})
	p := startStream(t, blockingHandler(t, released, "the second event was not answered while the first handler ran"))
	// One write from another goroutine: the pipe is unbuffered, and a runner that stopped reading
	// must fail the reply checks (bounded by recv) rather than block this test in a write.
	go func() { _, _ = io.WriteString(p.in, waitFrame(`"h1"`)+"\n"+eventFrame(`"h2"`)+"\n") }()
	p.expectOvertaken(`"h2"`, `"h1"`, released)
}

// The grace watchdog parks while the stream is idle and is woken by the next event: a handler that
// blocks without asking for its cancel, started after the park, still has reading moved on, so the
// next event is answered first. Parking is read from the stream's own state (a watchdog bound of
// 5 s, not a sleep).
func TestStreamGraceWatchdogParksAndWakes(t *testing.T) {
	released := make(chan struct{})
	p := startStream(t, blockingHandler(t, released, "the event after the blocking one was not answered while it ran"))
	p.send(eventFrame(`"h1"`))
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h1","result":`) {
		t.Fatalf("reply %s, want h1's", reply)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if c := active.Load(); c != nil && c.watchParked.Load() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grace watchdog did not park within 5 s of the stream going idle")
		}
	}
	// From another goroutine, as in TestStreamReadsOnWhileAHandlerBlocks.
	go func() { _, _ = io.WriteString(p.in, waitFrame(`"h2"`)+"\n"+eventFrame(`"h3"`)+"\n") }()
	p.expectOvertaken(`"h3"`, `"h2"`, released)
}
