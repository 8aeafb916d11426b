package lifeloop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The wire-version window (spec/wire-window.md): each document judged by the version it carries,
// one outside the window refused with the one outside-window issue, and the runners answering in
// the request's version. The shared cross-version vectors are window_vectors_test.go's.

// The two versions of the window while it is lifeloop.v0.4 + lifeloop.v0.3: the rules that differ
// between them (v0.4 adds non-empty Warning.message, ...) are what the version-specific tests use.
const (
	windowNewer = "lifeloop.v0.4"
	windowOlder = "lifeloop.v0.3"
)

// needWindowPair skips a test written for the window lifeloop.v0.4 + lifeloop.v0.3 once the window
// has moved on (npm run bump-version): its documents rely on what differs between those two.
func needWindowPair(t *testing.T) {
	t.Helper()
	if !reflect.DeepEqual(WireWindow, []string{windowNewer, windowOlder}) {
		t.Skipf("written for the window %s + %s; the window is now %v", windowNewer, windowOlder, WireWindow)
	}
}

// specWireVersion reads spec/wire-version.json of the repository, independently of the generated
// constants.
func specWireVersion(t *testing.T) (current string, accepted []string, rule, message string) {
	t.Helper()
	path := filepath.Join("..", "..", "spec", "wire-version.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s (run the tests in sdk/go of a lifeloop-callback checkout): %v", path, err)
	}
	var doc struct {
		Current       string   `json:"current"`
		Accepted      []string `json:"accepted"`
		OutsideWindow struct {
			Rule    string `json:"rule"`
			Message string `json:"message"`
		} `json:"outside_window"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc.Current, doc.Accepted, doc.OutsideWindow.Rule, doc.OutsideWindow.Message
}

func TestWireWindowIsTheSpecs(t *testing.T) {
	current, accepted, rule, message := specWireVersion(t)
	if want := append([]string{current}, accepted...); !reflect.DeepEqual(WireWindow, want) {
		t.Fatalf("WireWindow %v, spec/wire-version.json gives %v", WireWindow, want)
	}
	if OutsideWindowRule != rule || OutsideWindowMessage != message {
		t.Fatalf("outside-window rule %q and message %q, spec/wire-version.json gives %q and %q", OutsideWindowRule, OutsideWindowMessage, rule, message)
	}
	if got := (Window{}).Versions(); !reflect.DeepEqual(got, WireWindow) {
		t.Fatalf("the zero Window holds %v, want WireWindow %v", got, WireWindow)
	}
}

// responseIn is a CallbackResponse document of version with one warning whose message is message.
func responseIn(version, message string) []byte {
	return []byte(`{"schema_version":"` + version + `","status":"delivered","warnings":[{"code":"c","message":"` + message + `"}]}`)
}

// expectIssue checks that err is a *ValidationError whose primary issue is rule at pointer (and,
// when message is not empty, has that message).
func expectIssue(t *testing.T, what string, err error, rule, pointer, message string) {
	t.Helper()
	var invalid *ValidationError
	if !errors.As(err, &invalid) || invalid.Rule != rule || invalid.Pointer != pointer || (message != "" && invalid.Message != message) {
		t.Fatalf("%s: want %s at %q (%q), got %v", what, rule, pointer, message, err)
	}
}

func TestEachDocumentIsJudgedByItsOwnVersion(t *testing.T) {
	needWindowPair(t)
	// v0.3 admits an empty Warning.message, v0.4 refuses it: the same document at both versions.
	if err := ValidateDocument("CallbackResponse", responseIn(windowOlder, "")); err != nil {
		t.Fatalf("a %s response with an empty warning message: %v", windowOlder, err)
	}
	expectIssue(t, windowNewer, ValidateDocument("CallbackResponse", responseIn(windowNewer, "")), RuleNonEmptyIdentifier, "/warnings/0/message", "")
	// Decoders and encoders read the same way.
	decoded, err := DecodeCallbackResponse(responseIn(windowOlder, ""))
	if err != nil || decoded.SchemaVersion != windowOlder {
		t.Fatalf("DecodeCallbackResponse: %+v, %v", decoded, err)
	}
	if _, err := EncodeCallbackResponse(decoded); err != nil {
		t.Fatalf("EncodeCallbackResponse of a %s value: %v", windowOlder, err)
	}
	decoded.SchemaVersion = windowNewer
	expectIssue(t, "Validate", decoded.Validate(), RuleNonEmptyIdentifier, "/warnings/0/message", "")
	// Every nested schema_version must be the root's (the chosen version's own schema-version steps).
	envelope := `{"schema_version":"` + windowOlder + `","request":{"schema_version":"` + windowNewer + `","event":"session.starting","event_id":"e1","adapter_id":"codex","adapter_version":"0.1.0","integration_mode":"native_hook","invocation_id":"i1"}}`
	expectIssue(t, "mixed versions", ValidateDocument("DispatchEnvelope", []byte(envelope)), RuleSchemaVersionCurrent, "/request/schema_version",
		"schema_version mismatch: expected `"+windowOlder+"`, found `"+windowNewer+"`")
}

func TestOutsideTheWindow(t *testing.T) {
	message := func(value string, w Window) string {
		return formatMessage(OutsideWindowMessage, map[string]string{"value": value, "window": w.String()})
	}
	// The one issue, with the window named newest first in backticks.
	err := ValidateDocument("CallbackResponse", responseIn("lifeloop.v0.2", ""))
	expectIssue(t, "lifeloop.v0.2", err, OutsideWindowRule, "/schema_version", message("lifeloop.v0.2", Window{}))
	if issues := err.(*ValidationError).Issues; len(issues) != 1 {
		t.Fatalf("an outside-window document has one issue, got %v", issues)
	}
	wantList := "`" + strings.Join(WireWindow, "`, `") + "`"
	if got := (Window{}).String(); got != wantList {
		t.Fatalf("Window{}.String() = %q, want %q", got, wantList)
	}
	// The schema layer and the integer lexemes come first; the rules of no version run.
	expectIssue(t, "schema first", ValidateDocument("CallbackResponse", []byte(`{"schema_version":"x"}`)), RuleSchemaRequired, "/status", "")
	expectIssue(t, "lexemes first", ValidateDocument("CallbackRequest", []byte(`{"schema_version":"x","event":"session.starting","event_id":"","adapter_id":"a","adapter_version":"1","integration_mode":"native_hook","invocation_id":"i","sequence":1.0}`)), RuleSchemaType, "/sequence", "")
	expectIssue(t, "rules not run", ValidateDocument("CallbackRequest", []byte(`{"schema_version":"x","event":"session.starting","event_id":"","adapter_id":"a","adapter_version":"1","integration_mode":"native_hook","invocation_id":"i"}`)), OutsideWindowRule, "/schema_version", message("x", Window{}))
	// A missing or non-string schema_version is the schema layer's.
	expectIssue(t, "missing", ValidateDocument("CallbackResponse", []byte(`{"status":"delivered"}`)), RuleSchemaRequired, "/schema_version", "")
	expectIssue(t, "not a string", ValidateDocument("CallbackResponse", []byte(`{"schema_version":4,"status":"delivered"}`)), RuleSchemaType, "/schema_version", "")
	// A closed window refuses the versions it does not hold, naming only its own.
	for _, version := range WireWindow {
		closed, err := NewWindow(version)
		if err != nil {
			t.Fatal(err)
		}
		for _, other := range WireWindow {
			err := ValidateDocumentInWindow("CallbackResponse", responseIn(other, "m"), DefaultDocumentLimits, closed)
			if other == version {
				if err != nil {
					t.Fatalf("window %s, a %s document: %v", closed, other, err)
				}
				continue
			}
			expectIssue(t, "closed window", err, OutsideWindowRule, "/schema_version", "schema_version mismatch: `"+other+"` is outside this reader's wire-version window (`"+version+"`)")
			if _, err := DecodeCallbackResponseInWindow(responseIn(other, "m"), DefaultDocumentLimits, closed); err == nil {
				t.Fatalf("DecodeCallbackResponseInWindow(%s) accepted a %s document", closed, other)
			}
		}
	}
}

func TestNewWindow(t *testing.T) {
	if _, err := NewWindow(); err == nil {
		t.Fatal("NewWindow() with no version must fail")
	}
	if _, err := NewWindow(WireVersion, "lifeloop.v0.2"); err == nil || !strings.Contains(err.Error(), "lifeloop.v0.2") {
		t.Fatalf("NewWindow with a version this SDK does not read: %v", err)
	}
	reversed := make([]string, 0, len(WireWindow)+1)
	for i := len(WireWindow) - 1; i >= 0; i-- {
		reversed = append(reversed, WireWindow[i])
	}
	w, err := NewWindow(append(reversed, WireVersion)...)
	if err != nil || !reflect.DeepEqual(w.Versions(), WireWindow) {
		t.Fatalf("NewWindow(%v) = %v, %v; want the versions newest first, once each", reversed, w.Versions(), err)
	}
	closed, _ := NewWindow(WireVersion)
	if !closed.Contains(WireVersion) || (len(WireWindow) > 1 && closed.Contains(WireWindow[1])) {
		t.Fatalf("the window closed to %s holds %v", WireVersion, closed.Versions())
	}
}

// Every version of the window shares current's shapes today (its snapshot's schemas are current's),
// so the stream runner judges the tree of its frame parse without parsing the params again.
func TestWindowVersionsShareCurrentShapes(t *testing.T) {
	for _, v := range readableVersions {
		for _, name := range v.types {
			if v.sameShapes && v.metaOf(name) != typeMetaOf(name) {
				t.Fatalf("%s claims current's shapes but %s has its own metadata", v.version, name)
			}
		}
	}
}

// requestIn is runnerRequest (a session.starting DispatchEnvelope) in version.
func requestIn(version string) string {
	return strings.ReplaceAll(runnerRequest, `"schema_version":"`+WireVersion+`"`, `"schema_version":"`+version+`"`)
}

// readmeHandler answers as the README's Go client does: NewResponse (SchemaVersion WireVersion).
func readmeHandler(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
	response := NewResponse(ReceiptStatusDelivered)
	response.Metadata = map[string]any{"event": string(req.Event), "payloads": len(payloads), "version": req.SchemaVersion}
	return response, nil
}

// payloadHandler also hands back a client payload whose version it leaves to the SDK.
func payloadHandler(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
	body := "hi"
	size := int64(len(body))
	return CallbackResponse{Status: ReceiptStatusDelivered, ClientPayloads: []PayloadEnvelope{{
		PayloadID: "p1", ClientID: "c", PayloadKind: "k", Format: "text", ContentEncoding: "utf8", Body: &body, ByteSize: size,
		AcceptablePlacements: []AcceptablePlacement{{Placement: PlacementClassPrePromptFrame, Requirement: RequirementLevelRequired}},
	}}}, nil
}

// outsideVersion is a wire version outside the window (retired before it).
const outsideVersion = "lifeloop.v0.2"

func TestServeAnswersInTheRequestsVersion(t *testing.T) {
	for _, version := range WireWindow {
		for name, handler := range map[string]Handler{"empty": echoHandler, "NewResponse": readmeHandler, "payload": payloadHandler} {
			code, response, stderr := serve(t, context.Background(), requestIn(version), handler)
			if code != 0 || response.Status != ReceiptStatusDelivered || response.SchemaVersion != version || stderr != "" {
				t.Fatalf("%s request, %s handler: code %d, response %+v, stderr %q", version, name, code, response, stderr)
			}
			for _, p := range response.ClientPayloads {
				if p.SchemaVersion != version {
					t.Fatalf("%s request: a client payload in %s", version, p.SchemaVersion)
				}
			}
		}
		// A request of the window refused by its own rules is answered in its version.
		invalid := strings.Replace(requestIn(version), "session.starting", "frame.opening", 1)
		_, response, _ := serve(t, context.Background(), invalid, echoHandler)
		expectFailed(t, response, runnerRejectClass, RuleFrameEventRequiresFrameContext)
		if response.SchemaVersion != version {
			t.Fatalf("the refusal of a %s request is in %s", version, response.SchemaVersion)
		}
	}
}

func TestServeRefusesAVersionOutsideTheWindow(t *testing.T) {
	called := false
	handler := func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		called = true
		return echoHandler(req, payloads)
	}
	_, response, _ := serve(t, context.Background(), requestIn(outsideVersion), handler)
	expectFailed(t, response, runnerRejectClass, OutsideWindowRule)
	want := `"/schema_version": schema_version mismatch: ` + "`" + outsideVersion + "`" + ` is outside this reader's wire-version window (` + (Window{}).String() + `)`
	if called || response.SchemaVersion != WireVersion || response.Warnings[0].Message != want {
		t.Fatalf("handler called %v, response %+v; want a failed response in %s with the warning %q", called, response, WireVersion, want)
	}
}

func TestServeRefusesAResponseInAnotherVersion(t *testing.T) {
	needWindowPair(t)
	other := func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		return CallbackResponse{SchemaVersion: windowOlder, Status: ReceiptStatusDelivered}, nil
	}
	_, response, _ := serve(t, context.Background(), requestIn(windowNewer), other)
	expectFailed(t, response, runnerHandlerClass, RuleSchemaVersionCurrent)
	if response.SchemaVersion != windowNewer {
		t.Fatalf("the failed response is in %s, want %s", response.SchemaVersion, windowNewer)
	}
	// A response the older version accepts and the request's version refuses is refused.
	emptyMessage := func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		response := NewResponse(ReceiptStatusDelivered)
		response.Warnings = []Warning{{Code: "c", Message: ""}}
		return response, nil
	}
	_, response, _ = serve(t, context.Background(), requestIn(windowNewer), emptyMessage)
	expectFailed(t, response, runnerHandlerClass, RuleNonEmptyIdentifier)
	_, response, _ = serve(t, context.Background(), requestIn(windowOlder), emptyMessage)
	if response.Status != ReceiptStatusDelivered || response.SchemaVersion != windowOlder {
		t.Fatalf("a %s request answered with an empty warning message: %+v", windowOlder, response)
	}
}

// streamEventIn is eventFrame(id) with its params in version.
func streamEventIn(id, version string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"event/session.starting","params":` + requestIn(version) + `}`
}

// streamResult is the CallbackResponse of a reply frame to id.
func streamResult(t *testing.T, reply, id string) CallbackResponse {
	t.Helper()
	head := `{"jsonrpc":"2.0","id":` + id + `,"result":`
	if !strings.HasPrefix(reply, head) || !strings.HasSuffix(reply, "}") {
		t.Fatalf("reply %s, want a result to %s", reply, id)
	}
	response, err := DecodeCallbackResponse([]byte(strings.TrimSuffix(strings.TrimPrefix(reply, head), "}")))
	if err != nil {
		t.Fatalf("the reply's result is invalid: %v\n%s", err, reply)
	}
	return response
}

func TestStreamAnswersInTheRequestsVersion(t *testing.T) {
	p := startStream(t, readmeHandler)
	for i, version := range WireWindow {
		id := `"h` + string(rune('0'+i)) + `"`
		p.send(streamEventIn(id, version))
		if response := streamResult(t, p.recv(), id); response.Status != ReceiptStatusDelivered || response.SchemaVersion != version {
			t.Fatalf("a %s request: %+v", version, response)
		}
	}
	// Outside the window: failed, in current, naming the window; the stream goes on.
	p.send(streamEventIn(`"out"`, outsideVersion))
	response := streamResult(t, p.recv(), `"out"`)
	expectFailed(t, response, runnerRejectClass, OutsideWindowRule)
	if response.SchemaVersion != WireVersion || !strings.Contains(response.Warnings[0].Message, "("+(Window{}).String()+")") {
		t.Fatalf("an outside-window request: %+v", response)
	}
	p.send(streamEventIn(`"last"`, WireVersion))
	if response := streamResult(t, p.recv(), `"last"`); response.Status != ReceiptStatusDelivered {
		t.Fatalf("after the refusal: %+v", response)
	}
	p.in.Close()
	if code := p.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// A version whose shapes differ from current's (none does today: a future snapshot may) is judged
// on the tree parsed along its own schemas, nested types resolved through its own metadata: here a
// made-up version whose Warning declares a member `detail` (at most 3 characters) that current's
// lacks, so that the tree of current's parse (which keeps an undeclared member's type only) would
// not show the value's length.
func TestAVersionWithItsOwnShapesIsParsedAlongThem(t *testing.T) {
	warning := metaWarning
	warning.fields = append(append([]fieldMeta(nil), metaWarning.fields...), fieldMeta{name: "detail", shape: shape{kind: shapeString, maxLength: 3}})
	metaOf := func(name string) *typeMeta {
		if name == "Warning" {
			return &warning
		}
		return typeMetaOf(name)
	}
	v := newVersionRules("lifeloop.test", WireObjectTypes, false, metaOf, func(string) []ruleStep { return nil })
	w := Window{versions: []*versionRules{v}}
	doc := func(detail string) []byte {
		return []byte(`{"schema_version":"lifeloop.test","status":"delivered","warnings":[{"code":"c","message":"m","detail":"` + detail + `"}]}`)
	}
	if _, carried, err := decodeDocument("CallbackResponse", doc("abc"), DefaultDocumentLimits, w); err != nil || carried != "lifeloop.test" {
		t.Fatalf("a valid document of the made-up version: %q, %v", carried, err)
	}
	_, _, err := decodeDocument("CallbackResponse", doc("abcd"), DefaultDocumentLimits, w)
	expectIssue(t, "its own shapes", err, RuleSchemaMaxLength, "/warnings/0/detail", "")
	// Current refuses the member it does not declare.
	expectIssue(t, "current's shapes", ValidateDocument("CallbackResponse", []byte(strings.ReplaceAll(string(doc("abc")), "lifeloop.test", WireVersion))), RuleSchemaAdditionalProperties, "/warnings/0/detail", "")
}

// windowHelperEnv makes the test binary the README's client (TestWindowHelperClient) instead of
// running tests: Serve itself, in the transport its arguments ask for (-- --stream).
const windowHelperEnv = "LIFELOOP_WINDOW_HELPER"

// TestWindowHelperClient is the client process of TestWindowRealProcesses.
func TestWindowHelperClient(t *testing.T) {
	if os.Getenv(windowHelperEnv) == "" {
		t.Skip("the client process of TestWindowRealProcesses")
	}
	Serve(readmeHandler)
}

// windowClient is the test binary as the README's client; stream adds the stream flag. Its
// process group is killed at the end of the test in any case (the caller reaps it).
func windowClient(t *testing.T, stream bool) *exec.Cmd {
	t.Helper()
	args := []string{"-test.run=^TestWindowHelperClient$"}
	if stream {
		args = append(args, "--", SpecStreamV2.Launch.Flag)
	}
	cmd := exec.Command(os.Args[0], args...)
	// GORACE: a -race binary otherwise sleeps 1 s at exit (atexit_sleep_ms).
	cmd.Env = append(os.Environ(), windowHelperEnv+"=1", "GORACE=atexit_sleep_ms=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // our child's group
		}
	})
	return cmd
}

// One client binary, as real processes in both transports: each request in the window answered in
// its version, one outside it refused in current.
func TestWindowRealProcesses(t *testing.T) {
	requests := append(append([]string(nil), WireWindow...), outsideVersion)
	check := func(t *testing.T, version string, response CallbackResponse) {
		t.Helper()
		if version == outsideVersion {
			expectFailed(t, response, runnerRejectClass, OutsideWindowRule)
			if response.SchemaVersion != WireVersion {
				t.Fatalf("the refusal of a %s request is in %s, want %s", version, response.SchemaVersion, WireVersion)
			}
			return
		}
		if response.Status != ReceiptStatusDelivered || response.SchemaVersion != version || response.Metadata["version"] != version {
			t.Fatalf("a %s request: %+v", version, response)
		}
	}
	t.Run("subprocess", func(t *testing.T) {
		for _, version := range requests {
			cmd := windowClient(t, false)
			cmd.Stdin = strings.NewReader(requestIn(version))
			out, err := cmd.Output() // reaps it
			if err != nil {
				t.Fatalf("a %s request: the client failed: %v", version, err)
			}
			response, err := DecodeCallbackResponse(out)
			if err != nil {
				t.Fatalf("a %s request: an invalid response %q: %v", version, out, err)
			}
			check(t, version, response)
		}
	})
	t.Run("stream", func(t *testing.T) {
		cmd := windowClient(t, true)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i, version := range requests {
			if _, err := io.WriteString(stdin, streamEventIn(strconv.Itoa(i), version)+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		// Every reply is read before stdin is closed: at EOF the client exits without awaiting
		// handlers still running. Handlers run concurrently, so the replies come in any order.
		lines := make(chan string)
		go func() {
			r := bufio.NewReader(stdout)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					close(lines)
					return
				}
				lines <- strings.TrimSuffix(line, "\n")
			}
		}()
		for range requests {
			var reply string
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatal("the stream client closed stdout before answering every request")
				}
				reply = line
			case <-time.After(30 * time.Second): // a watchdog for a loaded machine, not a bound
				t.Fatal("no reply within 30 s")
			}
			var frame struct {
				ID int `json:"id"`
			}
			if err := json.Unmarshal([]byte(reply), &frame); err != nil || frame.ID < 0 || frame.ID >= len(requests) {
				t.Fatalf("reply %s", reply)
			}
			check(t, requests[frame.ID], streamResult(t, reply, strconv.Itoa(frame.ID)))
		}
		stdin.Close()
		for range lines { // drain to EOF, so that Wait may close the pipe
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the stream client's exit: %v", err)
		}
	})
}
