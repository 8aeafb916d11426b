package lifeloop

import (
	"context"
	"io"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// benchEventFrame is the request line of the stream benchmark (tools/bench/stream.ts envelopeOf and
// NdjsonFloor.roundTrip): a frame.opening event with a frame_context and no payloads.
func benchEventFrame(i int) []byte {
	n := strconv.Itoa(i)
	return []byte(`{"jsonrpc":"2.0","id":"h` + n + `","method":"event/frame.opening","params":{"schema_version":"` + WireVersion +
		`","request":{"schema_version":"` + WireVersion + `","event":"frame.opening","event_id":"evt-bench-` + n +
		`","adapter_id":"codex","adapter_version":"0.1.0","integration_mode":"native_hook","invocation_id":"inv-bench-` + n +
		`","harness_session_id":"sess-bench","frame_context":{"frame_id":"frame-` + n + `","frame_class":"top_level"}}}}` + "\n")
}

// benchEcho answers as the fixture client go-echo does: delivered, with metadata echoing the ids.
func benchEcho(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
	ids := make([]any, 0, len(payloads))
	for _, p := range payloads {
		ids = append(ids, p.PayloadID)
	}
	response := NewResponse(ReceiptStatusDelivered)
	response.Metadata = map[string]any{
		"echo": "go-sdk", "event": string(req.Event), "event_id": req.EventID, "invocation_id": req.InvocationID,
		"adapter_id": req.AdapterID, "payload_count": len(payloads), "payload_ids": ids, "matrix_action": "echo",
	}
	return response, nil
}

// frameFeed returns one request frame per Read, left frames in all, then io.EOF once every frame
// is answered (answered closed: at EOF the runner stops without awaiting handlers still running).
// It cycles through frames whose ids differ, so a handler that reading moved away from never holds
// an id the next frame reuses.
type frameFeed struct {
	frames   [][]byte
	left     int
	answered <-chan struct{}
}

func (f *frameFeed) Read(p []byte) (int, error) {
	if f.left == 0 {
		<-f.answered
		return 0, io.EOF
	}
	f.left--
	return copy(p, f.frames[f.left%len(f.frames)]), nil
}

// replyCounter counts the frames written (by any goroutine) and closes answered at the want-th.
type replyCounter struct {
	frames   atomic.Int64
	want     int64
	answered chan struct{}
}

func (w *replyCounter) Write(p []byte) (int, error) {
	if w.frames.Add(1) == w.want {
		close(w.answered)
	}
	return len(p), nil
}

// BenchmarkStreamRunnerFrame is the runner's CPU per event without the pipes: one request frame
// per read (the bench's line), decoded, handled by an echo handler and answered.
func BenchmarkStreamRunnerFrame(b *testing.B) {
	out := &replyCounter{want: int64(b.N), answered: make(chan struct{})}
	feed := &frameFeed{left: b.N, answered: out.answered}
	for i := 0; i < 1024; i++ {
		feed.frames = append(feed.frames, benchEventFrame(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	if code := ServeStreamIO(context.Background(), feed, out, io.Discard, benchEcho); code != 0 {
		b.Fatalf("exit %d", code)
	}
	b.StopTimer()
	// CPU time is what the benchmark is about and, unlike ns/op, does not grow with the machine's load.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	if n := out.frames.Load(); n != int64(b.N) {
		b.Fatalf("%d replies for %d requests", n, b.N)
	}
}

// processCPU is the CPU time (user + system) this process has used so far, every thread included.
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
