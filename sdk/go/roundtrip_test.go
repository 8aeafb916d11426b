package lifeloop

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

func strPtr(s string) *string { return &s }

func int64Ptr(i int64) *int64 { return &i }

func TestEncodePresence(t *testing.T) {
	fc := FailureClassTimeout
	rc := FailureClassTimeout.DefaultRetryClass()
	cases := []struct {
		name  string
		value CallbackResponse
		want  string
	}{
		{"optional_emit_null written as null, empty collections omitted", NewResponse(ReceiptStatusDelivered),
			`{"schema_version":"` + WireVersion + `","status":"delivered","failure_class":null,"retry_class":null}`},
		{"failed with classes", CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusFailed, FailureClass: &fc, RetryClass: &rc},
			`{"schema_version":"` + WireVersion + `","status":"failed","failure_class":"timeout","retry_class":"safe_retry"}`},
		{"collections written when non-empty, members in schema order", CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusObserved, Metadata: map[string]any{"b": 1, "a": []any{true, nil, "x"}}, ReceiptRefs: []string{"r1"}},
			`{"schema_version":"` + WireVersion + `","status":"observed","receipt_refs":["r1"],"failure_class":null,"retry_class":null,"metadata":{"a":[true,null,"x"],"b":1}}`},
	}
	for _, c := range cases {
		got, err := EncodeCallbackResponse(c.value)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}

	request := CallbackRequest{SchemaVersion: WireVersion, Event: LifecycleEventKindFrameOpening, EventID: "e", AdapterID: "codex", AdapterVersion: "0.1.0", IntegrationMode: IntegrationModeNativeHook, InvocationID: "i",
		FrameContext: &FrameContext{FrameID: "f", FrameClass: FrameClassTopLevel}, Sequence: int64Ptr(0), HarnessRunID: strPtr("run")}
	got, err := EncodeCallbackRequest(request)
	want := `{"schema_version":"` + WireVersion + `","event":"frame.opening","event_id":"e","adapter_id":"codex","adapter_version":"0.1.0","integration_mode":"native_hook","invocation_id":"i","harness_run_id":"run","frame_context":{"frame_id":"f","frame_class":"top_level"},"sequence":0}`
	if err != nil || string(got) != want {
		t.Errorf("request:\n got  %s (%v)\n want %s", got, err, want)
	}

	receipt := LifecycleReceipt{SchemaVersion: WireVersion, ReceiptID: "r", ClientID: "c", AdapterID: "codex", InvocationID: "i", Event: LifecycleEventKindSessionStarting, EventID: "e", IntegrationMode: IntegrationModeNativeHook, Status: ReceiptStatusDelivered, AtEpochS: 1700000000}
	got, err = EncodeLifecycleReceipt(receipt)
	want = `{"schema_version":"` + WireVersion + `","receipt_id":"r","idempotency_key":null,"client_id":"c","adapter_id":"codex","invocation_id":"i","event":"session.starting","event_id":"e","sequence":null,"parent_receipt_id":null,"integration_mode":"native_hook","status":"delivered","at_epoch_s":1700000000,"failure_class":null,"retry_class":null}`
	if err != nil || string(got) != want {
		t.Errorf("receipt:\n got  %s (%v)\n want %s", got, err, want)
	}
}

func TestEncodeRejectsInvalidValues(t *testing.T) {
	cases := []struct {
		value   CallbackResponse
		rule    string
		pointer string
	}{
		{CallbackResponse{Status: ReceiptStatusDelivered}, RuleSchemaVersionCurrent, "/schema_version"},
		{CallbackResponse{SchemaVersion: WireVersion}, RuleSchemaEnum, "/status"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusFailed}, RuleFailedRequiresFailureClass, "/failure_class"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Warnings: []Warning{{Code: "", Message: "m"}}}, RuleNonEmptyIdentifier, "/warnings/0/code"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, ReceiptRefs: []string{"\xff"}}, RuleJSONUTF8, "/receipt_refs/0"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"x": math.NaN()}}, RuleJSONNumberRange, "/metadata/x"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"x": make(chan int)}}, RuleSchemaType, "/metadata/x"},
		// Numbers beyond the doubles: every reader rejects them (json.number-range), so no encoder writes them.
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"x": json.Number("1e400")}}, RuleJSONNumberRange, "/metadata/x"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"x": new(big.Int).Exp(big.NewInt(10), big.NewInt(400), nil)}}, RuleJSONNumberRange, "/metadata/x"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"a": 1, "x": []any{1, map[string]any{"y": json.RawMessage(`[-1e999]`)}}}}, RuleJSONNumberRange, "/metadata/x/1/y"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"x": []any{math.Inf(-1)}}}, RuleJSONNumberRange, "/metadata/x/0"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"a/b": "\xff"}}, RuleJSONUTF8, "/metadata/a~1b"},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"x": nested(LimitMaxDepth - 1)}}, RuleJSONMaxDepth, "/metadata/x" + strings.Repeat("/0", LimitMaxDepth-2)},
		{CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: cyclic()}, RuleJSONMaxDepth, "/metadata" + strings.Repeat("/self", LimitMaxDepth-1)},
	}
	for i, c := range cases {
		_, err := EncodeCallbackResponse(c.value)
		var invalid *ValidationError
		if !errors.As(err, &invalid) || invalid.Rule != c.rule || invalid.Pointer != c.pointer {
			t.Errorf("case %d: expected %s at %q, got %v", i, c.rule, c.pointer, err)
		}
		if validateErr := c.value.Validate(); validateErr == nil {
			t.Errorf("case %d: Validate accepted an invalid value", i)
		}
	}
}

// nested is depth arrays inside one another around 0.
func nested(depth int) any {
	var v any = 0
	for i := 0; i < depth; i++ {
		v = []any{v}
	}
	return v
}

// cyclic is a map that contains itself.
func cyclic() map[string]any {
	m := map[string]any{}
	m["self"] = m
	return m
}

func TestEncodeWritesEveryNumberReadersAccept(t *testing.T) {
	huge := new(big.Int).Exp(big.NewInt(2), big.NewInt(64), nil)
	metadata := map[string]any{"a": json.Number("-0"), "b": huge, "c": math.MaxFloat64, "d": json.Number("1.0e308"), "e": nested(LimitMaxDepth - 2), "f": uint64(math.MaxUint64)}
	got, err := EncodeCallbackResponse(CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: metadata})
	want := `"metadata":{"a":-0,"b":18446744073709551616,"c":1.7976931348623157e+308,"d":1.0e308,"e":` + strings.Repeat("[", LimitMaxDepth-2) + "0" + strings.Repeat("]", LimitMaxDepth-2) + `,"f":18446744073709551615}`
	if err != nil || !strings.Contains(string(got), want) {
		t.Fatalf("got %s (%v), want it to contain %s", got, err, want)
	}
	if _, err := DecodeCallbackResponse(got); err != nil {
		t.Fatalf("the output does not decode: %v", err)
	}
	// Doubles are written as encoding/json writes them.
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-7, 1e-6, 123456789, 1e20, 1e21, 1.5e300, 5e-324, math.MaxFloat64, -math.SmallestNonzeroFloat64, 0.1, 2.5e-10} {
		want, _ := json.Marshal(f)
		if got := string(appendFloat(nil, f)); got != string(want) {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

func TestRoundTripAndJSONInterop(t *testing.T) {
	doc := `{"schema_version":"` + WireVersion + `","request":{"schema_version":"` + WireVersion + `","event":"frame.opening","event_id":"e","adapter_id":"codex","adapter_version":"0.1.0","integration_mode":"native_hook","invocation_id":"i","harness_session_id":null,"frame_context":{"frame_id":"f","frame_class":"subcall","parent_frame_id":"p"},"payload_refs":[],"metadata":{"k":{"n":[1,2.5]}}},"payloads":[{"schema_version":"` + WireVersion + `","payload_id":"p1","client_id":"c","payload_kind":"k","format":"text","content_encoding":"utf8","body":"h\u00e9llo","byte_size":6,"acceptable_placements":[{"placement":"pre_prompt_frame","requirement":"required"}]}]}`
	first, second, encoded, err := roundTrip("DispatchEnvelope", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("round trip changed the value: %s", encoded)
	}
	if strings.Contains(string(encoded), "harness_session_id") || strings.Contains(string(encoded), "payload_refs") {
		t.Errorf("optional null and empty collections must be omitted: %s", encoded)
	}
	envelope := first.(DispatchEnvelope)
	if envelope.Request.FrameContext.ParentFrameID == nil || *envelope.Request.FrameContext.ParentFrameID != "p" || *envelope.Payloads[0].Body != "h\u00e9llo" {
		t.Errorf("decoded values: %+v", envelope)
	}
	// encoding/json uses the same strict rules through MarshalJSON/UnmarshalJSON.
	var viaJSON DispatchEnvelope
	if err := json.Unmarshal([]byte(doc), &viaJSON); err != nil || !reflect.DeepEqual(viaJSON, envelope) {
		t.Fatalf("json.Unmarshal: %v", err)
	}
	if err := json.Unmarshal([]byte(strings.Replace(doc, `"event_id":"e"`, `"event_id":""`, 1)), &viaJSON); err == nil {
		t.Fatal("json.Unmarshal accepted an empty identifier")
	}
	wrapped, err := json.Marshal(map[string]any{"envelope": envelope})
	if err != nil || !strings.Contains(string(wrapped), `"frame_class":"subcall"`) {
		t.Fatalf("json.Marshal: %s %v", wrapped, err)
	}
}

func TestSpecTables(t *testing.T) {
	for _, fc := range FailureClassValues {
		if !fc.DefaultRetryClass().Valid() {
			t.Errorf("%s has no default retry class", fc)
		}
	}
	for _, e := range LifecycleEventKindValues {
		if _, ok := e.Info(); !ok {
			t.Errorf("%s is missing from EventVocabulary", e)
		}
	}
	if info, _ := LifecycleEventKindReceiptEmitted.Info(); !info.NotificationOnly {
		t.Error("receipt.emitted must be notification-only")
	}
	for _, stem := range SpecTableNames {
		text, ok := SpecTableJSON(stem)
		var v any
		if !ok || json.Unmarshal([]byte(text), &v) != nil {
			t.Errorf("SpecTableJSON(%q) is not JSON", stem)
		}
	}
	if len(SpecClientInitiatedCommands.Groups) == 0 || LimitMaxDepth != DefaultDocumentLimits.MaxDepth {
		t.Error("tables are incomplete")
	}
}
