package lifeloop

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

const runnerRequest = `{"schema_version":"` + WireVersion + `","request":{"schema_version":"` + WireVersion + `","event":"session.starting","event_id":"e1","adapter_id":"codex","adapter_version":"0.1.0","integration_mode":"native_hook","invocation_id":"i1"}}`

func echoHandler(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
	response := CallbackResponse{Status: ReceiptStatusDelivered}
	response.Metadata = map[string]any{"event": string(req.Event), "event_id": req.EventID, "payloads": len(payloads)}
	return response, nil
}

// serve runs ServeIO and returns the exit code, the one decoded response, and stderr.
func serve(t *testing.T, ctx context.Context, stdin string, handler Handler) (int, CallbackResponse, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := ServeIO(ctx, strings.NewReader(stdin), &stdout, &stderr, handler)
	out := stdout.String()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("stdout must hold exactly one line, got %q", out)
	}
	response, err := DecodeCallbackResponse(stdout.Bytes())
	if err != nil {
		t.Fatalf("the runner wrote an invalid response: %v\n%s", err, out)
	}
	return code, response, stderr.String()
}

func expectFailed(t *testing.T, response CallbackResponse, fc FailureClass, warning string) {
	t.Helper()
	if response.Status != ReceiptStatusFailed || response.FailureClass == nil || *response.FailureClass != fc {
		t.Fatalf("expected failed/%s, got %+v", fc, response)
	}
	if response.RetryClass == nil || *response.RetryClass != fc.DefaultRetryClass() {
		t.Fatalf("expected the default retry class of %s, got %v", fc, response.RetryClass)
	}
	if len(response.Warnings) != 1 || response.Warnings[0].Code != warning {
		t.Fatalf("expected one warning %q, got %+v", warning, response.Warnings)
	}
}

func TestServeDelivers(t *testing.T) {
	code, response, stderr := serve(t, context.Background(), runnerRequest, echoHandler)
	if code != 0 || response.Status != ReceiptStatusDelivered || response.SchemaVersion != WireVersion || stderr != "" {
		t.Fatalf("code %d, response %+v, stderr %q", code, response, stderr)
	}
	if response.Metadata["event_id"] != "e1" || response.Metadata["event"] != "session.starting" {
		t.Fatalf("metadata: %v", response.Metadata)
	}
}

func TestServeRejectsRequests(t *testing.T) {
	frameOpening := strings.Replace(runnerRequest, "session.starting", "frame.opening", 1)
	receiptEmitted := strings.Replace(runnerRequest, "session.starting", "receipt.emitted", 1)
	cases := []struct {
		stdin   string
		warning string
	}{
		{"", RuleJSONSyntax},
		{"not json", RuleJSONSyntax},
		{runnerRequest + runnerRequest, RuleJSONTrailingData},
		{strings.Replace(runnerRequest, `"event_id":"e1"`, `"event_id":"e1","event_id":"e2"`, 1), RuleJSONDuplicateKey},
		{strings.Replace(runnerRequest, "native_hook", "nope", 1), RuleSchemaEnum},
		{frameOpening, RuleFrameEventRequiresFrameContext},
		{receiptEmitted, runnerGuardCode},
		{strings.Replace(receiptEmitted, `"invocation_id":"i1"`, `"invocation_id":"i1","idempotency_key":"k"`, 1), RuleReceiptEmittedNoIdempotencyKey},
	}
	for _, c := range cases {
		called := false
		handler := func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
			called = true
			return echoHandler(req, payloads)
		}
		code, response, stderr := serve(t, context.Background(), c.stdin, handler)
		if code != 0 || called {
			t.Fatalf("%.40q: code %d, handler called %v", c.stdin, code, called)
		}
		expectFailed(t, response, runnerRejectClass, c.warning)
		if !strings.HasPrefix(stderr, "lifeloop: rejecting the request") {
			t.Fatalf("stderr: %q", stderr)
		}
	}
}

func TestServeOversizedRequest(t *testing.T) {
	stdin := strings.Repeat(" ", LimitMaxRequestBytes) + "{}"
	_, response, _ := serve(t, context.Background(), stdin, echoHandler)
	expectFailed(t, response, runnerRejectClass, RuleJSONMaxBytes)
}

func TestServeHandlerFailures(t *testing.T) {
	failing := func(CallbackRequest, []PayloadEnvelope) (CallbackResponse, error) {
		return CallbackResponse{}, errors.New("boom")
	}
	panicking := func(CallbackRequest, []PayloadEnvelope) (CallbackResponse, error) {
		panic("kaboom")
	}
	invalid := func(CallbackRequest, []PayloadEnvelope) (CallbackResponse, error) {
		return CallbackResponse{Status: ReceiptStatusFailed}, nil
	}
	for name, c := range map[string]struct {
		handler Handler
		warning string
	}{
		"error":   {failing, runnerHandlerThrewCode},
		"panic":   {panicking, runnerHandlerThrewCode},
		"invalid": {invalid, RuleFailedRequiresFailureClass},
	} {
		code, response, stderr := serve(t, context.Background(), runnerRequest, c.handler)
		if code != 0 || stderr == "" {
			t.Fatalf("%s: code %d, stderr %q", name, code, stderr)
		}
		expectFailed(t, response, runnerHandlerClass, c.warning)
	}
	// A handler may answer failed itself, with any class.
	_, response, _ := serve(t, context.Background(), runnerRequest, func(CallbackRequest, []PayloadEnvelope) (CallbackResponse, error) {
		return FailedResponse(FailureClassStateConflict), nil
	})
	if *response.FailureClass != FailureClassStateConflict || *response.RetryClass != RetryClassRetryAfterReread {
		t.Fatalf("%+v", response)
	}
}

func TestServeContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	handler := func(CallbackRequest, []PayloadEnvelope) (CallbackResponse, error) {
		cancel()
		<-release
		return NewResponse(ReceiptStatusDelivered), nil
	}
	code, response, _ := serve(t, ctx, runnerRequest, handler)
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	expectFailed(t, response, runnerTimeoutClass, runnerTimeoutCode)
}

func TestServeOversizedResponse(t *testing.T) {
	handler := func(CallbackRequest, []PayloadEnvelope) (CallbackResponse, error) {
		response := NewResponse(ReceiptStatusDelivered)
		response.Metadata = map[string]any{"blob": strings.Repeat("x", LimitMaxResponseBytes)}
		return response, nil
	}
	code, response, stderr := serve(t, context.Background(), runnerRequest, handler)
	if code != 0 || !strings.Contains(stderr, "max_response_bytes") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	expectFailed(t, response, runnerHandlerClass, RuleJSONMaxBytes)
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("stdin is gone") }

func TestServeUnreadableStdin(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := ServeIO(context.Background(), failingReader{}, &stdout, &stderr, echoHandler); code != 0 {
		t.Fatalf("code %d", code)
	}
	response, err := DecodeCallbackResponse(stdout.Bytes())
	if err != nil {
		t.Fatalf("%v: %q", err, stdout.String())
	}
	expectFailed(t, response, runnerReadClass, runnerReadCode)
	if !strings.Contains(stderr.String(), "stdin is gone") {
		t.Fatalf("stderr: %q", stderr.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestServeOutput(t *testing.T) {
	var buffer bytes.Buffer
	writer := bufio.NewWriter(&buffer)
	if code := ServeIO(context.Background(), strings.NewReader(runnerRequest), writer, &bytes.Buffer{}, echoHandler); code != 0 || buffer.Len() == 0 {
		t.Fatalf("a buffered stdout must be flushed (code %d, %d bytes)", code, buffer.Len())
	}
	var stderr bytes.Buffer
	if code := ServeIO(context.Background(), strings.NewReader(runnerRequest), failingWriter{}, &stderr, echoHandler); code != 1 || !strings.Contains(stderr.String(), "cannot write") {
		t.Fatalf("an unwritable stdout exits 1 (code %d, stderr %q)", code, stderr.String())
	}
}

// TestWarningLimitIsTheLimit checks the runner's cut of a warning message against
// limits.runner_warning_message_code_points, read from spec/tables/limits.json of the repository.
func TestWarningLimitIsTheLimit(t *testing.T) {
	limit := int(specLimit(t, "runner_warning_message_code_points"))
	got := failedWithWarning(WireVersion, FailureClassAdapterUnavailable, "c", strings.Repeat("é", limit+10)).Warnings[0].Message
	if want := strings.Repeat("é", limit) + "..."; got != want {
		t.Fatalf("the runner cut a warning to %d code points, limits.runner_warning_message_code_points = %d", utf8.RuneCountInString(got), limit)
	}
}
