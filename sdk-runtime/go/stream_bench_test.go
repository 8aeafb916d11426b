package lifeloop

import (
	"context"
	"io"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// benchEventFrame is the request line of the stream benchmark (test/bench/stream.ts envelopeOf and
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

// frameFeed returns one request frame per Read, n frames in all, then io.EOF.
type frameFeed struct {
	frame []byte
	left  int
}

func (f *frameFeed) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, io.EOF
	}
	f.left--
	return copy(p, f.frame), nil
}

// countingWriter counts the frames written.
type countingWriter struct{ frames int }

func (w *countingWriter) Write(p []byte) (int, error) { w.frames++; return len(p), nil }

// BenchmarkStreamRunnerFrame is the runner's CPU per event without the pipes: one request frame
// per read (the bench's line), decoded, handled by an echo handler and answered.
func BenchmarkStreamRunnerFrame(b *testing.B) {
	feed := &frameFeed{frame: benchEventFrame(7), left: b.N}
	out := &countingWriter{}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	if code := ServeStreamIO(context.Background(), feed, out, io.Discard, benchEcho); code != 0 {
		b.Fatalf("exit %d", code)
	}
	b.StopTimer()
	// CPU time is what the benchmark is about and, unlike ns/op, does not grow with the machine's load.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	if out.frames != b.N {
		b.Fatalf("%d replies for %d requests", out.frames, b.N)
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
