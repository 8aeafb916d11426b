package lifeloop

import (
	"encoding/base64"
	"reflect"
	"testing"
)

// parseFrame must record exactly the bytes of params as written, whatever the spacing, escapes
// and nesting around and inside it, and parse it along the DispatchEnvelope schema only when an
// event method comes first.
func TestParseFrameRecordsParams(t *testing.T) {
	cases := []struct {
		frame, want string
		envelope    bool
	}{
		{`{"jsonrpc":"2.0","id":"1","method":"event/x","params":{"a":1}}`, `{"a":1}`, false},
		{`{"jsonrpc":"2.0","id":"1","method":"event/frame.opening","params":{"a":1}}`, `{"a":1}`, true},
		{`{"jsonrpc":"2.0","id":"1","params":{"a":1},"method":"event/frame.opening"}`, `{"a":1}`, false},
		{` { "method" : "event/session.starting" , "params" : { "s" : "}]\"{[" , "n" : [ 1 , { } ] } , "jsonrpc" : "2.0" } `, `{ "s" : "}]\"{[" , "n" : [ 1 , { } ] }`, true},
		{`{"jsonrpc":"2.0","p\u0061rams":{"x":"\\"},"method":"m"}`, `{"x":"\\"}`, false},
		{`{"jsonrpc":"2.0","paramsX":{"no":1},"params":{"yes":true},"method":"m"}`, `{"yes":true}`, false},
		{"{\"params\":{\"t\":\"\u2028\"},\t\"jsonrpc\":\"2.0\",\"method\":\"m\"}", "{\"t\":\"\u2028\"}", false},
		{`{"jsonrpc":"2.0","method":"m","params":{}}`, `{}`, false},
		{`{"jsonrpc":"2.0","method":"m"}`, ``, false},
	}
	for _, c := range cases {
		_, at, issue := parseFrame([]byte(c.frame), nil)
		if issue != nil {
			t.Fatalf("case frame is not valid JSON: %s: %v", c.frame, issue)
		}
		if string(at.raw) != c.want || (c.want == "" && at.raw != nil) || at.envelope != c.envelope {
			t.Errorf("parseFrame(%s) params %q (envelope %v), want %q (envelope %v)", c.frame, at.raw, at.envelope, c.want, c.envelope)
		}
	}
}

// One parse of a frame must judge it as the two it replaces: the generic parse of the line
// (parseDocument: the same json.* issue, rule, pointer and message) and then DecodeDispatchEnvelope
// of the params bytes (the same envelope or the same error). Every v1 vector is sent as params,
// whole and cut short, with the method before and after it.
func TestParseFrameJudgesAsTwoParses(t *testing.T) {
	frames := 0
	for _, v := range loadVectors(t) {
		doc, err := base64.StdEncoding.DecodeString(v.DocumentBase64)
		if err != nil {
			t.Fatalf("%s: document_base64: %v", v.ID, err)
		}
		for i, line := range [][]byte{
			append(append([]byte(`{"jsonrpc":"2.0","id":7,"method":"event/frame.opening","params":`), doc...), '}'),
			append(append([]byte(`{"jsonrpc":"2.0","method":"event/session.starting","params": `), doc...), " }"...),
			append(append([]byte(`{"jsonrpc":"2.0","id":"a","params":`), doc...), `,"method":"event/frame.opening"}`...),
		} {
			judgeFrameBothWays(t, v.ID, line, doc, true)
			frames++
			if i > 0 || len(doc) > 4096 {
				continue
			}
			// 32 cuts of the first line of a short document: unterminated strings, numbers,
			// literals and containers at every depth, and the test stays quick.
			for end := len(line) - 1; end >= 0; end -= max(1, len(line)/32) {
				judgeFrameBothWays(t, v.ID, line[:end], doc, false)
				frames++
			}
		}
	}
	t.Logf("%d frames judged", frames)
}

// judgeFrameBothWays compares parseFrame (and decodeFrame's eventParams) with the two parses on
// one line; whole says the line holds doc as its params.
func judgeFrameBothWays(t *testing.T, id string, line, doc []byte, whole bool) {
	t.Helper()
	_, _, want := parseDocument(line, frameLimits)
	_, _, got := parseFrame(line, nil)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: %q: parseFrame gives %+v, parseDocument %+v", id, line, got, want)
	}
	if want != nil || !whole {
		return
	}
	f, violation := decodeFrame(line, nil, nil)
	if violation != nil || f.params == nil {
		return // a params that is not an object: the frame's own rules, checked by the stream vectors
	}
	params, _ := f.eventParams()
	gotEnvelope, gotVersion, gotErr := params.decode()
	wantEnvelope, wantVersion, wantErr := decodeDispatchIn(doc)
	if !reflect.DeepEqual(gotEnvelope, wantEnvelope) || gotVersion != wantVersion || !reflect.DeepEqual(gotErr, wantErr) {
		t.Fatalf("%s: params decode to %+v, %q, %v; decodeDispatchIn gives %+v, %q, %v", id, gotEnvelope, gotVersion, gotErr, wantEnvelope, wantVersion, wantErr)
	}
}
