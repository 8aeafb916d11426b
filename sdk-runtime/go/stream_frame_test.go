package lifeloop

import (
	"math"
	"testing"
)

// rawMember must find exactly the bytes of params that the strict parse read, whatever the
// spacing, escapes and nesting around and inside it.
func TestRawMemberFindsParamsAsWritten(t *testing.T) {
	cases := []struct{ frame, want string }{
		{`{"jsonrpc":"2.0","id":"1","method":"event/x","params":{"a":1}}`, `{"a":1}`},
		{` { "params" : { "s" : "}]\"{[" , "n" : [ 1 , { } ] } , "jsonrpc" : "2.0" } `, `{ "s" : "}]\"{[" , "n" : [ 1 , { } ] }`},
		{`{"jsonrpc":"2.0","p\u0061rams":{"x":"\\"},"method":"m"}`, `{"x":"\\"}`},
		{`{"jsonrpc":"2.0","paramsX":{"no":1},"params":{"yes":true},"method":"m"}`, `{"yes":true}`},
		{"{\"params\":{\"t\":\"\u2028\"},\t\"jsonrpc\":\"2.0\",\"method\":\"m\"}", "{\"t\":\"\u2028\"}"},
		{`{"jsonrpc":"2.0","method":"m","params":{}}`, `{}`},
		{`{"jsonrpc":"2.0","method":"m"}`, ``},
	}
	for _, c := range cases {
		if _, _, issue := parseDocument([]byte(c.frame), DocumentLimits{MaxBytes: math.MaxInt, MaxDepth: 8}); issue != nil {
			t.Fatalf("case frame is not valid JSON: %s: %v", c.frame, issue)
		}
		got := rawMember([]byte(c.frame), "params")
		if string(got) != c.want || (c.want == "" && got != nil) {
			t.Errorf("rawMember(%s) = %q, want %q", c.frame, got, c.want)
		}
	}
}
