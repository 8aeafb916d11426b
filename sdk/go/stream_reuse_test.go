package lifeloop

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Attacks on the memory the stream runner reuses from one frame to the next (the spell's parser,
// node arena, shared line text and reply buffer): whatever a handler keeps of its envelope, and
// reads later on another goroutine after many more frames were read, must be what it was given.

// reuseParams is a DispatchEnvelope whose every string, map and slice depends on i, with member
// names and values written with escapes, and padding that puts some frames past the 4 KiB of
// shared line text.
func reuseParams(i int) string {
	pad := strings.Repeat(fmt.Sprintf("%c", 'a'+i%26), (i%3)*2500)
	body := fmt.Sprintf("body-%d-\\u00e9\\n", i)
	decodedBody := fmt.Sprintf("body-%d-\u00e9\n", i)
	return `{"schema_version":"` + WireVersion + `","request":{"schema_version":"` + WireVersion + `",` +
		`"event":"session.starting","event_id":"ev\u002d` + fmt.Sprint(i) + `","adapter_id":"adapter-` + fmt.Sprint(i) + `",` +
		`"adapter_version":"0.` + fmt.Sprint(i) + `","integration_mode":"native_hook","invocation_id":"inv-` + fmt.Sprint(i) + `",` +
		`"metadata":{"k\u0065y":"value-` + fmt.Sprint(i) + `","pad":"` + pad + `","list":[` + fmt.Sprint(i) + `,"s-` + fmt.Sprint(i) + `",{"deep":["d-` + fmt.Sprint(i) + `"]},null,true]}},` +
		`"payloads":[{"schema_version":"` + WireVersion + `","payload_id":"p-` + fmt.Sprint(i) + `","client_id":"c-` + fmt.Sprint(i) + `",` +
		`"payload_kind":"kind-` + fmt.Sprint(i) + `","format":"f","content_encoding":"utf8","byte_size":` + fmt.Sprint(len(decodedBody)) + `,` +
		`"acceptable_placements":[{"placement":"developer_equivalent_frame","requirement":"optional"}],"body":"` + body + `"}]}`
}

type keptEvent struct {
	req      CallbackRequest
	payloads []PayloadEnvelope
	snapshot []byte
}

func encodeKept(req CallbackRequest, payloads []PayloadEnvelope) []byte {
	var b bytes.Buffer
	data, err := EncodeCallbackRequest(req)
	if err != nil {
		panic(err)
	}
	b.Write(data)
	for _, p := range payloads {
		data, err := EncodePayloadEnvelope(p)
		if err != nil {
			panic(err)
		}
		b.Write(data)
	}
	return b.Bytes()
}

func TestStreamHandlersKeepWhatTheyWereGiven(t *testing.T) {
	const events = 60
	var mu sync.Mutex
	var kept []keptEvent
	later := make(chan keptEvent, events)
	done := make(chan string, events)
	go func() { // reads each kept envelope on another goroutine, after more frames arrived
		for k := range later {
			if got := encodeKept(k.req, k.payloads); !bytes.Equal(got, k.snapshot) {
				done <- fmt.Sprintf("kept envelope changed:\n got  %s\n want %s", got, k.snapshot)
				continue
			}
			done <- ""
		}
	}()
	p := startStream(t, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		k := keptEvent{req: req, payloads: payloads, snapshot: encodeKept(req, payloads)}
		mu.Lock()
		kept = append(kept, k)
		if n := len(kept); n > 10 {
			later <- kept[n-10] // ten frames later
		}
		mu.Unlock()
		return echoHandler(req, payloads)
	})
	for i := 0; i < events; i++ {
		p.send(`{"jsonrpc":"2.0","id":` + fmt.Sprint(i) + `,"method":"event/session.starting","params":` + reuseParams(i) + `}`)
		if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":`+fmt.Sprint(i)+`,"result":{"schema_version":"`+WireVersion+`","status":"delivered"`) {
			t.Fatalf("reply %d: %s\n%s", i, reply, p.stderr.String())
		}
	}
	p.in.Close()
	p.exit()
	mu.Lock()
	for _, k := range kept[len(kept)-10:] {
		later <- k
	}
	mu.Unlock()
	close(later)
	for i := 0; i < len(kept); i++ {
		if msg := <-done; msg != "" {
			t.Fatal(msg)
		}
	}
	for i, k := range kept {
		if k.req.EventID != "ev-"+fmt.Sprint(i) || k.req.Metadata["key"] != "value-"+fmt.Sprint(i) || *k.payloads[0].Body != fmt.Sprintf("body-%d-\u00e9\n", i) {
			t.Fatalf("event %d kept %+v", i, k.req)
		}
	}
}

// Ids are correlated by JSON type and decoded value: "7" and 7 are two requests, "\u0037" is "7".
func TestStreamIDsByTypeAndDecodedValue(t *testing.T) {
	started := make(chan string, 4)
	release := make(chan struct{})
	p := startStream(t, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		started <- req.EventID
		if req.EventID != "quick" {
			<-release
		}
		return echoHandler(req, payloads)
	})
	frame := func(id, eventID string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"event/session.starting","params":` + strings.Replace(runnerRequest, `"event_id":"e1"`, `"event_id":"`+eventID+`"`, 1) + `}`
	}
	p.send(frame(`"7"`, "s7"))
	<-started
	p.send(frame(`7`, "n7"))
	<-started
	// Same decoded text as the string id in flight: already in use.
	p.send(frame(`"\u0037"`, "quick"))
	if reply := p.recv(); reply != `{"jsonrpc":"2.0","id":"7","error":{"code":-32600,"message":"id is already in use by a request being handled"}}` {
		t.Fatalf("reply %s", reply)
	}
	// A cancel of the number 7 cancels the number's request only; the string's is answered.
	p.send(`{"jsonrpc":"2.0","method":"lifeloop/cancel","params":{"id":7}}`)
	p.send(frame(`"sync"`, "quick")) // a barrier: once answered, the cancel was read
	<-started
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"sync","result":`) {
		t.Fatalf("reply %s", reply)
	}
	close(release)
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"7","result":`) || !strings.Contains(reply, `"s7"`) {
		t.Fatalf("reply %s", reply)
	}
	// Nothing more: 7 (the number) was cancelled. A later request proves the order.
	p.send(frame(`"after"`, "quick"))
	<-started
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"after","result":`) {
		t.Fatalf("reply %s (want after's; 7 was cancelled)", reply)
	}
}

// A stale cancel (for an event already answered) does not touch a later request reusing its id.
func TestStreamStaleCancelDoesNotCancelAReusedID(t *testing.T) {
	p := startStream(t, echoHandler)
	p.send(eventFrame(`"h1"`))
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h1","result":`) {
		t.Fatalf("reply %s", reply)
	}
	p.send(`{"jsonrpc":"2.0","method":"lifeloop/cancel","params":{"id":"h1"}}`)
	p.send(eventFrame(`"h1"`))
	if reply := p.recv(); !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":"h1","result":`) {
		t.Fatalf("reply %s", reply)
	}
}

// EventDone closes when the stream ends for an event delivered as a notification too (it has no
// id, so only the (event_id, invocation_id) index knows it).
func TestStreamNotificationEventDoneClosesAtEOF(t *testing.T) {
	got := make(chan bool, 1)
	waiting := make(chan struct{})
	p := startStream(t, func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		done := EventDone(req)
		close(waiting)
		select {
		case <-done:
			got <- true
		case <-time.After(3 * time.Second):
			got <- false
		}
		return echoHandler(req, payloads)
	})
	p.send(`{"jsonrpc":"2.0","method":"event/session.starting","params":` + runnerRequest + `}`)
	<-waiting
	p.in.Close()
	p.exit()
	if !<-got {
		t.Fatal("EventDone of a notification event did not close when the stream ended")
	}
}

// Params at the v1 limits and one past them (bytes and values), as a request and as a
// notification (whose frame leaves room for one more value): one parse judges them as the
// generic parse of the line followed by DecodeDispatchEnvelope of the params bytes.
func TestParseFrameAtTheV1Limits(t *testing.T) {
	if testing.Short() {
		t.Skip("16 MiB frames")
	}
	envelope := func(metadata string) []byte {
		return []byte(strings.Replace(runnerRequest, `"invocation_id":"i1"`, `"invocation_id":"i1","metadata":{`+metadata+`}`, 1))
	}
	base := envelope(`"pad":""`)
	bytesAt := func(total int) []byte {
		return envelope(`"pad":"` + strings.Repeat("x", total-len(base)) + `"`)
	}
	// The envelope of runnerRequest with metadata {"a":[]} holds 12 values (root, request, its 7
	// members and schema_version, metadata, a); each 0 element adds one.
	_, _, issue := parseDocument(envelope(`"a":[]`), DocumentLimits{MaxBytes: LimitMaxRequestBytes, MaxDepth: LimitMaxDepth, MaxValues: 12})
	if issue != nil {
		t.Fatalf("the base envelope holds more than 12 values: %v", issue)
	}
	valuesAt := func(total int) []byte {
		return envelope(`"a":[` + strings.TrimSuffix(strings.Repeat("0,", total-12), ",") + `]`)
	}
	docs := map[string][]byte{
		"bytes at the limit":  bytesAt(LimitMaxRequestBytes),
		"bytes one over":      bytesAt(LimitMaxRequestBytes + 1),
		"values at the limit": valuesAt(LimitMaxValues),
		"values one over":     valuesAt(LimitMaxValues + 1),
	}
	for name, doc := range docs {
		for _, head := range []string{
			`{"jsonrpc":"2.0","id":7,"method":"event/session.starting","params":`,
			`{"jsonrpc":"2.0","method":"event/session.starting","params":`,
		} {
			line := append(append([]byte(head), doc...), '}')
			judgeFrameBothWays(t, name, line, doc, true)
		}
	}
	if _, err := DecodeDispatchEnvelope(docs["bytes one over"]); err == nil || !strings.Contains(err.Error(), RuleJSONMaxBytes) {
		t.Fatalf("one byte over: %v", err)
	}
	if _, err := DecodeDispatchEnvelope(docs["values one over"]); err == nil || !strings.Contains(err.Error(), RuleJSONMaxValues) {
		t.Fatalf("one value over: %v", err)
	}
	for _, name := range []string{"bytes at the limit", "values at the limit"} {
		if _, err := DecodeDispatchEnvelope(docs[name]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
