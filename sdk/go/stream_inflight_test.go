// The stream runner under load: bursts of mixed handlers, the client-request in-flight limit and
// the frame limit of a client request. Each test here failed before the fix it names.

package lifeloop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// stressHost is a host for the stress test: it writes events, reads every frame the runner
// writes, answers the runner's own requests and records the replies by id.
type stressHost struct {
	t       *testing.T
	in      *io.PipeWriter
	writeMu sync.Mutex
	replies chan map[string]any
}

func (h *stressHost) write(frame string) {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	if _, err := io.WriteString(h.in, frame+"\n"); err != nil {
		h.t.Errorf("write: %v", err)
	}
}

// readFrames reads the runner's frames: a request (continuation/put) is answered at once with an
// error that echoes its thread, a reply to one of the host's events is passed on.
func (h *stressHost) readFrames(out io.Reader) {
	r := bufio.NewReaderSize(out, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			close(h.replies)
			return
		}
		var frame map[string]any
		if err := json.Unmarshal(line, &frame); err != nil {
			h.t.Errorf("the runner wrote a line that is not JSON: %q", line)
			continue
		}
		if method, ok := frame["method"].(string); ok {
			params, _ := frame["params"].(map[string]any)
			id, _ := json.Marshal(frame["id"])
			// From another goroutine: the host reads on while it answers.
			go h.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"not available","data":{"error":"storage_failure","thread":%q,"method":%q}}}`, id, params["thread"], method))
			continue
		}
		h.replies <- frame
	}
}

// stressEvent is event i: its kind picks what the handler does (see stressHandler).
func stressEvent(i int) string {
	params := strings.Replace(runnerRequest, `"event_id":"e1"`, fmt.Sprintf(`"event_id":"ev-%d"`, i), 1)
	params = strings.Replace(params, `"invocation_id":"i1"`, fmt.Sprintf(`"invocation_id":"inv-%d","metadata":{"n":%d,"pad":"%s"}`, i, i, strings.Repeat("x", (i*37)%3000)), 1)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"event/session.starting","params":%s}`, i, params)
}

// stressHandler: kind 0 answers at once, 1 spins past inlineHandlerGrace without asking for its
// cancel, 2 waits for its cancel (the host cancels it), 3 calls back into the host, 4 panics,
// 5 sleeps. Every answer names the event it was given.
func stressHandler(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
	n := int(req.Metadata["n"].(float64))
	response := CallbackResponse{Status: ReceiptStatusDelivered, Metadata: map[string]any{"event_id": req.EventID, "n": n}}
	switch n % 6 {
	case 1:
		for start := time.Now(); time.Since(start) < 3*inlineHandlerGrace; {
		}
	case 2:
		<-EventDone(req)
	case 3:
		_, err := Continuation.Put(context.Background(), fmt.Sprintf("t-%d", n), "k", []byte("v"), nil)
		var hostErr *HostError
		if !asHostError(err, &hostErr) || !strings.Contains(fmt.Sprint(hostErr.Details), fmt.Sprintf("t-%d", n)) {
			return CallbackResponse{}, fmt.Errorf("event %d: the host's answer was not its own: %v", n, err)
		}
		response.Metadata["thread"] = hostErr.Details["thread"]
	case 4:
		panic(fmt.Sprintf("handler %d panics", n))
	case 5:
		time.Sleep(time.Duration(n%3) * time.Millisecond)
	}
	return response, nil
}

func asHostError(err error, target **HostError) bool {
	e, ok := err.(*HostError)
	if ok {
		*target = e
	}
	return ok
}

// Under every GOMAXPROCS, a burst of events with handlers that answer at once, spin, wait for
// their cancel, call back into the host, panic or sleep: every request that was not cancelled gets
// exactly one reply, with its own id and the answer of its own event (nothing of one frame leaks
// into another's reply), cancelled ones get none, and the runner exits 0 within
// stream_client_exit_ms of EOF. Run it with -race.
func TestStreamBurstOfMixedHandlers(t *testing.T) {
	events := 300
	if testing.Short() {
		events = 60
	}
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			h := &stressHost{t: t, in: inW, replies: make(chan map[string]any, events)}
			go h.readFrames(outR)
			code := make(chan int, 1)
			go func() {
				code <- ServeStreamIO(context.Background(), inR, outW, io.Discard, stressHandler)
				outW.Close()
			}()
			want := map[string]int{}
			var lateCancels []string
			for i := 0; i < events; i++ {
				frame := stressEvent(i)
				if i%6 == 2 {
					cancel := fmt.Sprintf(`{"jsonrpc":"2.0","method":"%s","params":{"id":%d}}`, SpecStreamV2.Cancel.Method, i)
					if i%12 == 2 {
						frame += "\n" + cancel // in the same write
					} else {
						lateCancels = append(lateCancels, cancel) // once every other reply came
					}
				} else {
					want[fmt.Sprint(i)] = i
				}
				h.write(frame)
			}
			got := map[string]bool{}
			watchdog := time.After(30 * time.Second)
			for len(got) < len(want) {
				select {
				case frame, ok := <-h.replies:
					if !ok {
						t.Fatalf("the runner's stdout ended after %d of %d replies", len(got), len(want))
					}
					id := fmt.Sprint(frame["id"])
					n, expected := want[id]
					if !expected {
						t.Fatalf("a reply to id %s, which was cancelled or never sent: %v", id, frame)
					}
					if got[id] {
						t.Fatalf("a second reply to id %s", id)
					}
					got[id] = true
					result, _ := frame["result"].(map[string]any)
					metadata, _ := result["metadata"].(map[string]any)
					if n%6 == 4 {
						if result["status"] != "failed" {
							t.Fatalf("the panicking handler %d: reply %v", n, frame)
						}
						continue
					}
					if result["status"] != "delivered" || metadata["event_id"] != fmt.Sprintf("ev-%d", n) || metadata["n"] != float64(n) {
						t.Fatalf("reply to id %s is not its event's answer: %v", id, frame)
					}
					if n%6 == 3 && metadata["thread"] != fmt.Sprintf("t-%d", n) {
						t.Fatalf("reply to id %s carries another call's answer: %v", id, frame)
					}
				case <-watchdog:
					t.Fatalf("only %d of %d replies within 30 s", len(got), len(want))
				}
			}
			// Then the other cancels, then EOF: no reply to a cancelled event may follow.
			for _, cancel := range lateCancels {
				h.write(cancel)
			}
			{
				closeAndExpectExit(t, inW, code, "after a burst")
				for frame := range h.replies {
					t.Errorf("a reply after the last expected one: %v", frame)
				}
			}
		})
	}
}

// requestCounter is the runner's stdout: it counts the client requests written (frames with a
// method) and passes every frame on.
type requestCounter struct {
	w       io.Writer
	mu      sync.Mutex
	written int
	more    chan struct{} // signalled after each request written
}

func (r *requestCounter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), `"method":`) {
		r.mu.Lock()
		r.written++
		r.mu.Unlock()
		select {
		case r.more <- struct{}{}:
		default:
		}
	}
	return r.w.Write(p)
}

func (r *requestCounter) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}

// Handlers of more events than limits.max_client_requests_in_flight that all call back into the
// host at once never have more than that many requests unanswered (the host would end the stream
// with stream.request-flood): the one past the limit waits for a reply. Before the fix every
// handler's request was written at once. The host here answers nothing until every handler asked
// and the runner stopped writing requests (500 ms without one, the bound on this assertion's
// window), then answers everything; every event is then answered.
func TestStreamClientRequestsStayWithinTheInFlightLimit(t *testing.T) {
	const events = LimitMaxClientRequestsInFlight + 16
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	counter := &requestCounter{w: outW, more: make(chan struct{}, 1)}
	var entered sync.WaitGroup
	entered.Add(events)
	code := make(chan int, 1)
	go func() {
		code <- ServeStreamIO(context.Background(), inR, counter, io.Discard, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
			entered.Done()
			if _, err := Continuation.Put(context.Background(), req.EventID, "k", []byte("v"), nil); err == nil {
				return CallbackResponse{}, fmt.Errorf("the test host answers every request with an error")
			}
			return echoHandler(req, payloads)
		})
		outW.Close()
	}()
	var writeMu sync.Mutex
	write := func(frame string) {
		writeMu.Lock()
		defer writeMu.Unlock()
		_, _ = io.WriteString(inW, frame+"\n")
	}
	go func() {
		for i := 0; i < events; i++ {
			write(strings.Replace(stressEvent(i), `"n":`+fmt.Sprint(i), `"n":0`, 1))
		}
	}()
	frames := make(chan map[string]any, 4*events)
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(frames)
				return
			}
			var frame map[string]any
			_ = json.Unmarshal(line, &frame)
			frames <- frame
		}
	}()
	entriesDone := make(chan struct{})
	go func() { entered.Wait(); close(entriesDone) }()
	select {
	case <-entriesDone:
	case <-time.After(10 * time.Second):
		t.Fatalf("not every handler was called within 10 s")
	}
	for quiet := time.NewTimer(500 * time.Millisecond); counter.count() < events; {
		select {
		case <-counter.more:
			quiet.Reset(500 * time.Millisecond)
			continue
		case <-quiet.C:
		}
		break
	}
	if n := counter.count(); n > LimitMaxClientRequestsInFlight {
		t.Fatalf("%d client requests unanswered at once, over limits.max_client_requests_in_flight (%d)", n, LimitMaxClientRequestsInFlight)
	}
	replies := 0
	for replies < events {
		select {
		case frame, ok := <-frames:
			if !ok {
				t.Fatalf("stdout ended after %d replies", replies)
			}
			if _, isRequest := frame["method"]; isRequest {
				id, _ := json.Marshal(frame["id"])
				go write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"not available"}}`, id))
				continue
			}
			if result, _ := frame["result"].(map[string]any); result["status"] != "delivered" {
				t.Fatalf("reply %v", frame)
			}
			replies++
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d replies within 10 s", replies, events)
		}
	}
	inW.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
}

// A client request whose frame would exceed limits.max_frame_bytes (a continuation blob over about
// three quarters of it, base64) is refused in the runner with RequestFrameTooLargeError and never
// written: the host ends the stream at such a frame (stream.frame-too-large) and fails every event
// pending on it. Before the fix the frame was written. The stream goes on: the event is answered.
func TestStreamRequestOverTheFrameLimitIsNotSent(t *testing.T) {
	blob := make([]byte, LimitMaxFrameBytes*3/4+1024)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- ServeStreamIO(context.Background(), inR, outW, io.Discard, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
			_, err := Continuation.Put(context.Background(), "t", "k", blob, nil)
			var tooLarge *RequestFrameTooLargeError
			if !errors.As(err, &tooLarge) || tooLarge.MaxBytes != LimitMaxFrameBytes || tooLarge.Bytes <= LimitMaxFrameBytes {
				return CallbackResponse{}, fmt.Errorf("Put of a blob over the frame limit: %v", err)
			}
			return echoHandler(req, payloads)
		})
		outW.Close()
	}()
	go func() { _, _ = io.WriteString(inW, eventFrame(`"h1"`)+"\n") }()
	r := bufio.NewReader(outR)
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if n := len(line) - 1; n > LimitMaxFrameBytes {
		t.Fatalf("the runner wrote a frame of %d bytes, over limits.max_frame_bytes (%d)", n, LimitMaxFrameBytes)
	}
	if !strings.HasPrefix(string(line), `{"jsonrpc":"2.0","id":"h1","result":{"schema_version":"`+WireVersion+`","status":"delivered"`) {
		t.Fatalf("first frame %.300s", line)
	}
	inW.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
}
