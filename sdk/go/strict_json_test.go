package lifeloop

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Parse-layer and schema-layer cases whose rule ids and pointers are those of the TypeScript
// validator (runtime/wire/json/, runtime/wire/schema.ts).

type parseCase struct {
	input   string
	rule    string
	pointer string
}

func TestParseLayer(t *testing.T) {
	limits := DocumentLimits{MaxBytes: 1 << 20, MaxDepth: 4}
	cases := []parseCase{
		{"", RuleJSONSyntax, ""},
		{"   ", RuleJSONSyntax, ""},
		{"\xEF\xBB\xBF{}", RuleJSONBOM, ""},
		{"{\"a\":\"\xC0\xAF\"}", RuleJSONUTF8, ""},
		{"{\"a\":\"\xED\xA0\x80\"}", RuleJSONUTF8, ""},
		{"{} x", RuleJSONTrailingData, ""},
		{"{}{}", RuleJSONTrailingData, ""},
		{"{}\u00a0", RuleJSONSyntax, ""},
		{"{\"a\":1,\"a\":2}", RuleJSONDuplicateKey, "/a"},
		{"{\"a\":1,\"\\u0061\":2}", RuleJSONDuplicateKey, "/a"},
		{"{\"x\":{\"a/b\":1,\"a\\/b\":2}}", RuleJSONDuplicateKey, "/x/a~1b"},
		{"[[[[1]]]]", "", ""},
		{"[[[[[1]]]]]", RuleJSONMaxDepth, "/0/0/0/0"},
		{"{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}", RuleJSONMaxDepth, "/a/b/c/d"},
		{"[\"\\ud800\"]", RuleJSONLoneSurrogate, "/0"},
		{"[\"\\udc00\"]", RuleJSONLoneSurrogate, "/0"},
		{"[\"\\ud800\\u0041\"]", RuleJSONLoneSurrogate, "/0"},
		{"{\"\\ud800\":1}", RuleJSONLoneSurrogate, ""},
		{"[\"\\ud83d\\ude00\"]", "", ""},
		{"[1e400]", RuleJSONNumberRange, "/0"},
		{"{\"n\":-1e309}", RuleJSONNumberRange, "/n"},
		{"[1e-400]", "", ""},
		{"[1,]", RuleJSONSyntax, ""},
		{"{\"a\":1,}", RuleJSONSyntax, ""},
		{"[1,2", RuleJSONSyntax, ""},
		{"[1,", RuleJSONSyntax, "/1"},
		{"{\"a\":}", RuleJSONSyntax, "/a"},
		{"{\"a\" 1}", RuleJSONSyntax, "/a"},
		{"{'a':1}", RuleJSONSyntax, ""},
		{"[01]", RuleJSONSyntax, "/0"},
		{"[-]", RuleJSONSyntax, "/0"},
		{"[1.]", RuleJSONSyntax, "/0"},
		{"[NaN]", RuleJSONSyntax, "/0"},
		{"[-Infinity]", RuleJSONSyntax, "/0"},
		{"[tru]", RuleJSONSyntax, "/0"},
		{"[\"a\tb\"]", RuleJSONSyntax, "/0"},
		{"[\"\\x\"]", RuleJSONSyntax, "/0"},
		{"{\"a\":[1 2]}", RuleJSONSyntax, "/a"},
		{"// c\n{}", RuleJSONSyntax, ""},
		{"{\"a\":1,\"a\":[1e400]}", RuleJSONDuplicateKey, "/a"},
		{"[1e400,\"\\ud800\"]", RuleJSONNumberRange, "/0"},
	}
	for _, c := range cases {
		_, _, issue := parseDocument([]byte(c.input), limits)
		switch {
		case c.rule == "" && issue != nil:
			t.Errorf("%q: expected ok, got %s at %q: %s", c.input, issue.Rule, issue.Pointer, issue.Message)
		case c.rule != "" && issue == nil:
			t.Errorf("%q: expected %s at %q, got ok", c.input, c.rule, c.pointer)
		case c.rule != "" && (issue.Rule != c.rule || issue.Pointer != c.pointer):
			t.Errorf("%q: expected %s at %q, got %s at %q: %s", c.input, c.rule, c.pointer, issue.Rule, issue.Pointer, issue.Message)
		}
	}
	if _, _, issue := parseDocument([]byte(`{"a":1}`), DocumentLimits{MaxBytes: 6, MaxDepth: 4}); issue == nil || issue.Rule != RuleJSONMaxBytes {
		t.Errorf("expected json.max-bytes, got %+v", issue)
	}
	root, nonInteger, issue := parseDocument([]byte(`{"a":[1.0,-0,1e2,3,"\u00e9\n"]}`), limits)
	if issue != nil || nonInteger != 3 {
		t.Fatalf("got %+v, %d non-integer numbers", issue, nonInteger)
	}
	if got := string(writeNode(nil, root)); got != "{\"a\":[1.0,-0,1e2,3,\"\u00e9\\n\"]}" {
		t.Errorf("writer: %s", got)
	}
}

const minimalRequest = `{"schema_version":"` + WireVersion + `","event":"session.starting","event_id":"e1","adapter_id":"codex","adapter_version":"0.1.0","integration_mode":"native_hook","invocation_id":"i1"}`

func requestWith(member string) []byte {
	return []byte(strings.TrimSuffix(minimalRequest, "}") + "," + member + "}")
}

func TestSchemaAndRuleLayers(t *testing.T) {
	cases := []struct {
		doc     []byte
		rule    string
		pointer string
	}{
		{[]byte(minimalRequest), "", ""},
		{[]byte(`[]`), RuleSchemaType, ""},
		{[]byte(`{"schema_version":"x"}`), RuleSchemaRequired, "/event"},
		{requestWith(`"zzz":1,"7":2,"3":3`), RuleSchemaAdditionalProperties, "/3"},
		{requestWith(`"Event_id":"x"`), RuleSchemaAdditionalProperties, "/Event_id"},
		{requestWith(`"sequence":1.0`), RuleSchemaType, "/sequence"},
		{requestWith(`"sequence":1e2`), RuleSchemaType, "/sequence"},
		{requestWith(`"sequence":-0`), RuleSchemaType, "/sequence"},
		{requestWith(`"sequence":1.5`), RuleSchemaType, "/sequence"},
		{requestWith(`"sequence":-1`), RuleSchemaMinimum, "/sequence"},
		{requestWith(`"sequence":9007199254740992`), RuleSchemaMaximum, "/sequence"},
		{requestWith(`"sequence":1e300`), RuleSchemaMaximum, "/sequence"},
		{requestWith(`"sequence":9007199254740991`), "", ""},
		{requestWith(`"sequence":null`), "", ""},
		{requestWith(`"metadata":{"x":1.5,"y":[1e2]}`), "", ""},
		{requestWith(`"metadata":null`), RuleSchemaType, "/metadata"},
		{requestWith(`"payload_refs":null`), RuleSchemaType, "/payload_refs"},
		{requestWith(`"harness_run_id":7`), RuleSchemaType, "/harness_run_id"},
		{requestWith(`"harness_run_id":"` + strings.Repeat("\U0001F600", 512) + `"`), "", ""},
		{requestWith(`"harness_run_id":"` + strings.Repeat("\U0001F600", 513) + `"`), RuleSchemaMaxLength, "/harness_run_id"},
		{requestWith(`"harness_run_id":""`), RuleNonEmptyIdentifier, "/harness_run_id"},
		{requestWith(`"frame_context":{"frame_id":"f","frame_class":"nope"}`), RuleSchemaEnum, "/frame_context/frame_class"},
		{requestWith(`"frame_context":{"frame_id":"f","frame_class":"subcall"}`), RuleFrameContextSubcallRequiresParent, "/frame_context/parent_frame_id"},
		{requestWith(`"payload_refs":[{"payload_id":"p","payload_kind":"k","byte_size":2.0},{"payload_id":"p"}]`), RuleSchemaRequired, "/payload_refs/1/payload_kind"},
		{requestWith(`"payload_refs":[{"payload_id":"p","payload_kind":"k","byte_size":2.0}],"sequence":1.0`), RuleSchemaType, "/payload_refs/0/byte_size"},
		{requestWith(`"sequence":1.0,"payload_refs":[{"payload_id":"p","payload_kind":"k","byte_size":2.0}]`), RuleSchemaType, "/sequence"},
		{requestWith(`"payload_refs":[` + strings.TrimSuffix(strings.Repeat(`{},`, 1025), ",") + `]`), RuleSchemaMaxItems, "/payload_refs"},
		{requestWith(`"payload_refs":[1,` + strings.TrimSuffix(strings.Repeat(`{},`, 1025), ",") + `]`), RuleSchemaMaxItems, "/payload_refs"},
		{requestWith(`"payload_refs":[` + strings.TrimSuffix(strings.Repeat(`{"payload_id":"p","payload_kind":"k"},`, 1024), ",") + `]`), "", ""},
		{requestWith(`"zzz":[1,{"a":[-0]}],"sequence":1.0`), RuleSchemaAdditionalProperties, "/zzz"},
		{requestWith(`"frame_context":[{"frame_id":"f"}]`), RuleSchemaType, "/frame_context"},
		{requestWith(`"payload_refs":{"0":{}}`), RuleSchemaType, "/payload_refs"},
		{requestWith(`"metadata":[{"a":1}]`), RuleSchemaType, "/metadata"},
		{requestWith(`"metadata":"x"`), RuleSchemaType, "/metadata"},
		{requestWith(`"metadata":{"sequence":1.0,"payload_refs":[{"byte_size":-0}]}`), "", ""},
		{[]byte(strings.Replace(minimalRequest, "session.starting", "frame.opening", 1)), RuleFrameEventRequiresFrameContext, "/frame_context"},
		{[]byte(strings.Replace(minimalRequest, WireVersion, "lifeloop.v0.2", 1)), RuleSchemaVersionCurrent, "/schema_version"},
	}
	for i, c := range cases {
		err := ValidateDocument("CallbackRequest", c.doc)
		if c.rule == "" {
			if err != nil {
				t.Errorf("case %d: expected valid, got %v", i, err)
			}
			continue
		}
		var invalid *ValidationError
		if !errors.As(err, &invalid) || invalid.Rule != c.rule || invalid.Pointer != c.pointer {
			t.Errorf("case %d: expected %s at %q, got %v", i, c.rule, c.pointer, err)
		}
	}
}

func TestResponseRules(t *testing.T) {
	cases := []struct {
		doc     string
		rule    string
		pointer string
	}{
		{`{"schema_version":"` + WireVersion + `","status":"delivered"}`, "", ""},
		{`{"schema_version":"` + WireVersion + `","status":"failed"}`, RuleFailedRequiresFailureClass, "/failure_class"},
		{`{"schema_version":"` + WireVersion + `","status":"failed","failure_class":"timeout"}`, RuleFailedRequiresRetryClass, "/retry_class"},
		{`{"schema_version":"` + WireVersion + `","status":"delivered","failure_class":"timeout"}`, RuleFailureClassOnlyOnFailed, "/failure_class"},
		{`{"schema_version":"` + WireVersion + `","status":"delivered","failure_class":null,"retry_class":null}`, "", ""},
		{`{"schema_version":"` + WireVersion + `","status":"delivered","failure_class":7}`, RuleSchemaType, "/failure_class"},
		{`{"schema_version":"` + WireVersion + `","status":"delivered","receipt_refs":["a",""]}`, RuleNonEmptyIdentifier, "/receipt_refs/1"},
	}
	for i, c := range cases {
		_, err := DecodeCallbackResponse([]byte(c.doc))
		if c.rule == "" {
			if err != nil {
				t.Errorf("case %d: expected valid, got %v", i, err)
			}
			continue
		}
		var invalid *ValidationError
		if !errors.As(err, &invalid) || invalid.Rule != c.rule || invalid.Pointer != c.pointer {
			t.Errorf("case %d: expected %s at %q, got %v", i, c.rule, c.pointer, err)
		}
	}
	// All rule issues are reported, the first (in plan order) being the primary one.
	_, err := DecodeCallbackResponse([]byte(`{"schema_version":"` + WireVersion + `","status":"failed","receipt_refs":[""]}`))
	var invalid *ValidationError
	if !errors.As(err, &invalid) || len(invalid.Issues) != 3 || invalid.Rule != RuleNonEmptyIdentifier {
		t.Fatalf("expected three rule issues, got %v", err)
	}
	// A version outside the window is the one issue: the rules of no version are run.
	_, err = DecodeCallbackResponse([]byte(`{"schema_version":"x","status":"failed"}`))
	if !errors.As(err, &invalid) || len(invalid.Issues) != 1 || invalid.Rule != OutsideWindowRule {
		t.Fatalf("expected the one outside-window issue, got %v", err)
	}
}

// TestTypedParseFindsTheSameParseIssues: parsing along the schema (open maps as map[string]any,
// values the schema rejects kept by JSON type only) reports exactly the json.* issue of the
// generic parse, wherever the problem sits.
func TestTypedParseFindsTheSameParseIssues(t *testing.T) {
	members := []string{
		`"metadata":{"a":1,"a":2}`,
		`"metadata":{"a":[1,2,]}`,
		`"metadata":{"a":[[[[[[[[1]]]]]]]]}`,
		`"metadata":{"a":{"b":[1e400]}}`,
		`"metadata":{"a":"\ud800"}`,
		`"metadata":{"a":[1 2]}`,
		`"metadata":{"a":tru}`,
		`"metadata":{"a":-Infinity}`,
		`"metadata":{"a":NaN}`,
		`"metadata":{"a":01}`,
		`"metadata":{"a":{'b':1}}`,
		`"metadata":{"a":{"b" 1}}`,
		`"metadata":{"a":{"b":1,}}`,
		`"metadata":[1,2,]`,
		`"metadata":[{"a":1,"a":2}]`,
		`"zzz":{"a":1,"a":2}`,
		`"zzz":[1e999]`,
		`"zzz":[[[[[[[[[]]]]]]]]]`,
		`"frame_context":[1,{"x":1,"x":2}]`,
		`"sequence":{"a":[1,]}`,
		`"payload_refs":[{"payload_id":"p","payload_kind":"k","byte_size":1},{"byte_size":1,"byte_size":2}]`,
		`"payload_refs":[` + strings.Repeat(`{},`, 1100) + `{"a":1,"a":1}]`,
		`"payload_refs":[` + strings.Repeat(`{},`, 1100) + `]`,
		`"metadata":{"a":[1,2,3],"b":{"c":[{"d":[-0,1.5,"x",null,true,false]}]}}`,
	}
	limits := DocumentLimits{MaxBytes: 1 << 20, MaxDepth: 8}
	for _, member := range members {
		for _, doc := range [][]byte{requestWith(member), requestWith(member)[:len(requestWith(member))-3]} {
			_, _, want := parseDocument(doc, limits)
			_, _, got := parseTyped(doc, limits, typeMetaOf("CallbackRequest"))
			if (want == nil) != (got == nil) || (want != nil && *want != *got) {
				t.Errorf("%s:\n typed   %+v\n generic %+v", doc, got, want)
			}
		}
	}
}

// allocated is the number of bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMemoryIsBoundedByTheInput: decoding and encoding cost a small multiple of the document,
// whatever its open maps hold. The decoded map itself needs 16 bytes ([]any) per element, about 5
// times a 3-byte "-0,"; a node per number, or a JSON pointer per value, costs far more.
func TestMemoryIsBoundedByTheInput(t *testing.T) {
	longKey := requestWith(`"metadata":{"` + strings.Repeat("k", 100000) + `":[` + strings.TrimSuffix(strings.Repeat("0.5,", 100000), ",") + `]}`)
	// As many -0 as limits.max_values allows (a few values are the request's own members).
	count := LimitMaxValues - 64
	zeros := requestWith(`"metadata":{"z":[` + strings.TrimSuffix(strings.Repeat("-0,", count), ",") + `]}`)
	integerField := requestWith(`"sequence":-0,"metadata":{"z":[` + strings.TrimSuffix(strings.Repeat("-0,", count), ",") + `]}`)
	for name, doc := range map[string][]byte{"a long member name over fractions": longKey, "megabytes of -0": zeros} {
		var request CallbackRequest
		var err error
		if used := allocated(func() { request, err = DecodeCallbackRequest(doc) }); err != nil || used > 12*uint64(len(doc)) {
			t.Errorf("%s: decoding %d bytes allocated %d bytes (%v)", name, len(doc), used, err)
		}
		var out []byte
		if used := allocated(func() { out, err = EncodeCallbackRequest(request) }); err != nil || used > 20*uint64(len(doc)) {
			t.Errorf("%s: encoding %d bytes allocated %d bytes (%v)", name, len(out), used, err)
		}
	}
	var err error
	used := allocated(func() { _, err = DecodeCallbackRequest(integerField) })
	var invalid *ValidationError
	if !errors.As(err, &invalid) || invalid.Rule != RuleSchemaType || invalid.Pointer != "/sequence" || used > 12*uint64(len(integerField)) {
		t.Errorf("-0 in an integer field: %v after %d bytes allocated for %d", err, used, len(integerField))
	}
}

// TestMaxMembers: every object of the document, open maps and nested ones, holds at most
// MaxMembers members; every member name of the text counts, a repeated one too (the count comes
// before the duplicate check), in the generic and the typed parse alike.
func TestMaxMembers(t *testing.T) {
	limits := DocumentLimits{MaxBytes: 1 << 20, MaxDepth: 8, MaxMembers: 12}
	cases := map[string]string{
		`"metadata":{"a":0,"b":0}`: "",
		`"metadata":{"a":{"x":0,"y":0,"z":0,"w":0,"v":0,"u":0,"t":0,"s":0,"r":0,"q":0,"p":0,"o":0}}`:       "",
		`"metadata":{"a":{"x":0,"y":0,"z":0,"w":0,"v":0,"u":0,"t":0,"s":0,"r":0,"q":0,"p":0,"o":0,"n":0}}`: RuleJSONMaxMembers + " /metadata/a/n",
		`"metadata":{"a":{"x":0,"y":0,"z":0,"w":0,"v":0,"u":0,"t":0,"s":0,"r":0,"q":0,"p":0,"o":0,"x":1}}`: RuleJSONMaxMembers + " /metadata/a/x",
		`"metadata":{"a":{"x":0,"y":0,"z":0,"w":0,"v":0,"u":0,"t":0,"s":0,"r":0,"q":0,"p":0,"x":1}}`:       RuleJSONDuplicateKey + " /metadata/a/x",
	}
	for member, want := range cases {
		doc := requestWith(member)
		for name, parse := range map[string]func() *Issue{
			"generic": func() *Issue { _, _, issue := parseDocument(doc, limits); return issue },
			"typed":   func() *Issue { _, _, issue := parseTyped(doc, limits, typeMetaOf("CallbackRequest")); return issue },
		} {
			got := ""
			if issue := parse(); issue != nil {
				got = issue.Rule + " " + issue.Pointer
			}
			if got != want {
				t.Errorf("%s %s: got %q, want %q", name, member, got, want)
			}
		}
	}
	var b strings.Builder
	for i := 0; i <= LimitMaxObjectMembers; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":0`, i)
	}
	_, err := DecodeCallbackRequest(requestWith(`"metadata":{` + b.String() + `}`))
	var invalid *ValidationError
	if !errors.As(err, &invalid) || invalid.Rule != RuleJSONMaxMembers || invalid.Pointer != fmt.Sprintf("/metadata/k%d", LimitMaxObjectMembers) {
		t.Errorf("limits.max_object_members + 1 members: %v", err)
	}
}

// TestEncodeMaxMembers: what the encoder writes, every reader decodes. An open map of more than
// limits.max_object_members members is refused while it is written (json.max-members at the first
// member past the limit in the order written, the pointer decoding those bytes gives), also when
// it is embedded JSON (json.RawMessage).
func TestEncodeMaxMembers(t *testing.T) {
	members := func(n int) map[string]any {
		m := make(map[string]any, n)
		for i := 0; i < n; i++ {
			m[fmt.Sprintf("k%05d", i)] = 0
		}
		return m
	}
	response := func(metadata map[string]any) CallbackResponse {
		return CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusObserved, Metadata: metadata}
	}
	data, err := EncodeCallbackResponse(response(members(LimitMaxObjectMembers)))
	if err != nil {
		t.Fatalf("limits.max_object_members members: %v", err)
	}
	if _, err := DecodeCallbackResponse(data); err != nil {
		t.Fatalf("the encoded at-limit response does not decode: %v", err)
	}
	want := fmt.Sprintf("%s /metadata/k%05d", RuleJSONMaxMembers, LimitMaxObjectMembers)
	for name, metadata := range map[string]map[string]any{
		"open map":      members(LimitMaxObjectMembers + 1),
		"nested in one": {"a": []any{members(LimitMaxObjectMembers + 1)}},
	} {
		_, err := EncodeCallbackResponse(response(metadata))
		var invalid *ValidationError
		got := fmt.Sprint(err)
		if errors.As(err, &invalid) {
			got = invalid.Rule + " " + invalid.Pointer
		}
		expected := want
		if name == "nested in one" {
			expected = fmt.Sprintf("%s /metadata/a/0/k%05d", RuleJSONMaxMembers, LimitMaxObjectMembers)
		}
		if got != expected {
			t.Errorf("%s: got %q, want %q", name, got, expected)
		}
	}
	raw, _ := json.Marshal(members(LimitMaxObjectMembers + 1))
	_, err = EncodeCallbackResponse(response(map[string]any{"raw": json.RawMessage(raw)}))
	var invalid *ValidationError
	if !errors.As(err, &invalid) || invalid.Rule != RuleJSONMaxMembers {
		t.Errorf("embedded JSON over the limit: %v", err)
	}
}

// TestCompactValueCount: the encoders' value count agrees with the strict parser's on compact
// documents (strings holding quotes, escapes, colons, commas and brackets; empty and nested
// containers): the parser accepts the document with MaxValues at the count and refuses it, with
// json.max-values, one below.
func TestCompactValueCount(t *testing.T) {
	docs := []string{
		`0`, `""`, `[]`, `{}`, `[[]]`, `[{}]`, `{"a":[]}`, `[1,2,3]`, `[[1,[2,[]]],{}]`,
		`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`,
		`{"k:,[]{}":"v:,\"[{]}\\","x":["\\\"",",",":"]}`,
		`{"metadata":{"a":[{},{},{"b":[]}],"s":"\u00e9\"\\"}}`,
	}
	for _, doc := range docs {
		n := compactValueCount([]byte(doc))
		if _, _, issue := parse([]byte(doc), DocumentLimits{MaxBytes: len(doc), MaxDepth: LimitMaxDepth, MaxValues: n}, nil); issue != nil {
			t.Errorf("%s: counted %d, the parser refuses that many: %+v", doc, n, issue)
		}
		if n > 1 {
			if _, _, issue := parse([]byte(doc), DocumentLimits{MaxBytes: len(doc), MaxDepth: LimitMaxDepth, MaxValues: n - 1}, nil); issue == nil || issue.Rule != RuleJSONMaxValues {
				t.Errorf("%s: counted %d, but the parser accepts %d values: %+v", doc, n, n-1, issue)
			}
		}
	}
	// At the encoder: a response of exactly limits.max_values values is written, one more is refused.
	head := compactValueCount(mustEncode(t, CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"a": []any{}}}))
	for _, extra := range []int{0, 1} {
		n := LimitMaxValues - head + extra
		_, err := EncodeCallbackResponse(CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusDelivered, Metadata: map[string]any{"a": make([]any, n)}})
		var invalid *ValidationError
		if over := errors.As(err, &invalid) && invalid.Rule == RuleJSONMaxValues; over != (extra == 1) || (err != nil && !over) {
			t.Errorf("%d values: %v", head+n, err)
		}
	}
}

func mustEncode(t *testing.T, r CallbackResponse) []byte {
	t.Helper()
	data, err := EncodeCallbackResponse(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
