// The stream runner's replies: a shared response encoded by concurrent handlers, and a response
// over max_response_bytes. Each test here failed before the fix it names.

package lifeloop

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Handlers running at once that all return one shared response (the same Metadata map, nested
// maps and slices, the same Warnings slice): the runner only reads what a handler returns, so
// encoding them concurrently is race-free (run with -race) and every reply is the same.
func TestStreamSharedResponseEncodedConcurrently(t *testing.T) {
	shared := CallbackResponse{
		Status:   ReceiptStatusDelivered,
		Metadata: map[string]any{"z": 1, "a": []any{"x", map[string]any{"k": "v", "b": true}}, "m": map[string]any{"2": 2, "1": 1}},
		Warnings: []Warning{{Code: "w1", Message: "shared"}, {Code: "w2", Message: "shared too"}},
	}
	const events = 64
	var started sync.WaitGroup
	started.Add(events)
	release := make(chan struct{})
	p := startStream(t, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		EventDone(req) // moves reading on at once
		started.Done()
		<-release
		return shared, nil
	})
	go func() {
		for i := 0; i < events; i++ {
			p.send(strings.Replace(eventFrame(fmt.Sprint(i)), `"invocation_id":"i1"`, fmt.Sprintf(`"invocation_id":"i%d"`, i), 1))
		}
	}()
	started.Wait()
	close(release) // every handler returns the shared response at once
	var first string
	for i := 0; i < events; i++ {
		reply := p.recv()
		result := reply[strings.Index(reply, `"result":`):]
		if first == "" {
			first = result
		} else if result != first {
			t.Fatalf("replies differ:\n %s\n %s", first, result)
		}
	}
	p.in.Close()
	if code := p.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// A handler's response over limits.max_response_bytes whose reply frame still fits
// limits.max_frame_bytes is refused as v1 refuses it (the runner-outcomes row response_too_large:
// status failed with a json.max-bytes warning): the host bounds each result at
// max_response_bytes as in v1. Before the fix the stream runner sent it as it was.
func TestStreamResponseOverMaxResponseBytes(t *testing.T) {
	var size int
	p := startStream(t, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		response := NewResponse(ReceiptStatusDelivered)
		response.Metadata = map[string]any{"blob": ""}
		data, _ := EncodeCallbackResponse(response)
		response.Metadata["blob"] = strings.Repeat("x", LimitMaxResponseBytes+1-len(data))
		data, _ = EncodeCallbackResponse(response)
		size = len(data)
		return response, nil
	})
	p.send(eventFrame(`"h1"`))
	reply := p.recv()
	if size != LimitMaxResponseBytes+1 || len(reply) > LimitMaxFrameBytes {
		t.Fatalf("the test's response is %d bytes, its frame %d", size, len(reply))
	}
	var frame struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(reply), &frame); err != nil {
		t.Fatal(err)
	}
	result, err := DecodeCallbackResponse(frame.Result) // within max_response_bytes, valid
	if err != nil || result.Status != ReceiptStatusFailed || len(result.Warnings) != 1 || result.Warnings[0].Code != RuleJSONMaxBytes {
		t.Fatalf("reply of %d bytes (%v): %.200s", len(reply), err, reply)
	}
}
