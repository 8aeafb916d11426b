package lifeloop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"unicode/utf8"
)

// Handler answers one dispatched event. req is the validated CallbackRequest; payloads are the
// PayloadEnvelopes delivered with it (DispatchEnvelope.payloads, possibly empty).
//
// The request may be of any version of the default window (WireWindow: req.SchemaVersion says which,
// each judged by its own version's rules), and the runner answers in that version with no
// configuration (spec/wire-window.md, "Clients answer in the request's version"): a SchemaVersion
// left empty or set to WireVersion (as NewResponse and FailedResponse set it), in the response and
// in each of its ClientPayloads, is written as the request's version; the response is then checked
// with the window closed to that version. A handler that sets another version gets the failed
// answer of an invalid response.
//
// Return a CallbackResponse or an error. An error becomes a failed response with failure class runnerHandlerClass and its
// default retry class, with a Warning whose code is runnerHandlerThrewCode; so does a panic. A
// response that breaks the wire contract (e.g. status failed without failure_class) is never
// written: the runner answers failed/runnerHandlerClass instead and logs the issue to stderr.
// See ServeIO for every outcome.
//
// A handler must not write to stdout: Serve redirects os.Stdout to stderr while it runs.
type Handler func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error)

// Serve makes the current process a subprocess callback client (CALLBACK-001, transport
// subprocess_v1): it reads one DispatchEnvelope from stdin, answers it with exactly one
// CallbackResponse on stdout and exits (status 0 once the response is written). While the
// handler runs, os.Stdout points at stderr so stray prints cannot corrupt the response.
// See ServeIO for the full behaviour.
//
// Started with StreamFlag (--stream) among its arguments, it serves a stream instead (transport
// stream_v2, ServeStream) with the same handler.
func Serve(handler Handler) {
	if StreamRequested(os.Args[1:]) {
		ServeStream(handler)
		return
	}
	stdout := os.Stdout
	os.Stdout = os.Stderr
	code := ServeIO(context.Background(), os.Stdin, stdout, os.Stderr, handler)
	os.Exit(code)
}

// ServeIO is Serve over explicit streams; it returns the process exit code instead of exiting.
//
//  1. It reads stdin to EOF, accepting at most LimitMaxRequestBytes bytes (the
//     rest of a longer input is read and discarded).
//  2. It decodes the DispatchEnvelope strictly (DecodeDispatchEnvelope: by the version of the
//     default window it carries) and refuses an event the host never dispatches.
//  3. It calls handler, then validates the handler's response (see Handler).
//  4. It writes the response as one compact JSON line to stdout, flushes stdout when it has a
//     Flush method, and returns 0. It returns 1 only when the response cannot be written.
//
// Every response is written in the request's wire version (see Handler); a request whose version
// cannot be read (outside the window, or not JSON at all) is answered in the current version.
// Every refusal and failure is answered with status failed, a failure class and its default
// retry class (FailedResponse), and one Warning whose code names the failure variant of
// spec/tables/subprocess-failure-mapping.json (the FailureVariant* constants) and whose message
// says why. The outcomes, in the order ServeIO checks them, are listed with the runner* constants
// in runner_outcomes.go (generated from the tables). The Python SDK's runner
// (lifeloop_callback.serve) answers the same, except that it has no context that could end.
//
// Every diagnostic goes to stderr, one line each, prefixed "lifeloop: ".
func ServeIO(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, handler Handler) int {
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "lifeloop: "+format+"\n", args...)
	}
	response, data := answer(ctx, stdin, handler, logf)
	var err error
	if data == nil {
		data, err = encodeAnswer(response)
	}
	if err != nil {
		logf("internal: the runner built an invalid response: %v", err)
		data, _ = encodeAnswer(failedIn(response.SchemaVersion, runnerHandlerClass))
	}
	if len(data) > LimitMaxResponseBytes {
		data, _ = encodeAnswer(responseTooLarge(len(data), response.SchemaVersion, logf))
	}
	data = append(data, '\n')
	if _, err := stdout.Write(data); err != nil {
		logf("cannot write the response to stdout: %v", err)
		return 1
	}
	if flusher, ok := stdout.(interface{ Flush() error }); ok {
		if err := flusher.Flush(); err != nil {
			logf("cannot flush stdout: %v", err)
			return 1
		}
	}
	return 0
}

// responseTooLarge is the failed response (in version) that replaces a handler's response of size
// bytes, over limits.max_response_bytes (the runner-outcomes row response_too_large), in both
// transports.
func responseTooLarge(size int, version string, logf func(string, ...any)) CallbackResponse {
	message := fmt.Sprintf("the handler's response is %d bytes, over limits.max_response_bytes (%d bytes)", size, LimitMaxResponseBytes)
	logf("the handler's response is invalid: %s", message)
	return failedWithWarning(version, runnerHandlerClass, RuleJSONMaxBytes, message)
}

// NewResponse returns a CallbackResponse with the current wire version and the given status
// (no failure class, no retry class). The runners write it in the request's version (see Handler).
func NewResponse(status ReceiptStatus) CallbackResponse {
	return CallbackResponse{SchemaVersion: WireVersion, Status: status}
}

// FailedResponse returns a failed CallbackResponse with the current wire version, failure class fc
// and its default retry class (spec/tables/failure-retry-defaults.json). The runners write it in
// the request's version (see Handler).
func FailedResponse(fc FailureClass) CallbackResponse {
	return failedIn(WireVersion, fc)
}

// failedIn is FailedResponse in wire version version.
func failedIn(version string, fc FailureClass) CallbackResponse {
	retry := fc.DefaultRetryClass()
	return CallbackResponse{SchemaVersion: version, Status: ReceiptStatusFailed, FailureClass: &fc, RetryClass: &retry}
}

// warningLimit bounds the warning messages the runner writes, in code points.
const warningLimit = LimitRunnerWarningMessageCodePoints

// failedWithWarning is FailedResponse in wire version version plus one Warning.
func failedWithWarning(version string, fc FailureClass, code, message string) CallbackResponse {
	if utf8.RuneCountInString(message) > warningLimit {
		message = string([]rune(message)[:warningLimit]) + "..."
	}
	response := failedIn(version, fc)
	response.Warnings = []Warning{
		{Code: code, Message: message},
	}
	return response
}

// answerVersion is the wire version a runner answers a request in, given the version the request
// carries when the default window holds it (decodeDocument's carried; also for a request that is
// otherwise invalid, so that its host can read the refusal): that version, or the current one for
// a request whose version cannot be read.
func answerVersion(carried string) string {
	if carried == "" {
		return WireVersion
	}
	return carried
}

// encodeAnswer encodes a response the runner built, checked with the window closed to its version
// (EncodeCallbackResponse otherwise).
func encodeAnswer(response CallbackResponse) ([]byte, error) {
	return encodeDocument("CallbackResponse", response.toNode(), windowOf(response.SchemaVersion))
}

// inVersion returns the handler's response written in version (see Handler): its SchemaVersion and
// those of its ClientPayloads, when empty or WireVersion (the SDK's defaults), become version. The
// handler's slice is not changed (it is copied when a payload's version is).
func inVersion(response CallbackResponse, version string) CallbackResponse {
	defaulted := func(v string) bool { return v != version && (v == "" || v == WireVersion) }
	if defaulted(response.SchemaVersion) {
		response.SchemaVersion = version
	}
	copied := false
	for i := range response.ClientPayloads {
		if !defaulted(response.ClientPayloads[i].SchemaVersion) {
			continue
		}
		if !copied {
			response.ClientPayloads = append([]PayloadEnvelope(nil), response.ClientPayloads...)
			copied = true
		}
		response.ClientPayloads[i].SchemaVersion = version
	}
	return response
}

// readRequest reads stdin to EOF; oversized is true when it held more than limit bytes.
func readRequest(stdin io.Reader, limit int) (data []byte, oversized bool, err error) {
	data, err = io.ReadAll(io.LimitReader(stdin, int64(limit)+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > limit {
		_, err = io.Copy(io.Discard, stdin)
		return nil, true, err
	}
	return data, false, nil
}

// handlerResult is what the handler goroutine reports.
type handlerResult struct {
	response CallbackResponse
	err      error
}

// answer produces the one response for the request on stdin.
func answer(ctx context.Context, stdin io.Reader, handler Handler, logf func(string, ...any)) (CallbackResponse, []byte) {
	data, oversized, err := readRequest(stdin, LimitMaxRequestBytes)
	if err != nil {
		logf("cannot read the request from stdin: %v", err)
		return failedWithWarning(WireVersion, runnerReadClass, runnerReadCode, err.Error()), nil
	}
	if oversized {
		message := fmt.Sprintf("the request exceeds limits.max_request_bytes (%d bytes)", LimitMaxRequestBytes)
		logf("rejecting the request: %s: %s", RuleJSONMaxBytes, message)
		return failedWithWarning(WireVersion, runnerRejectClass, RuleJSONMaxBytes, message), nil
	}
	envelope, refusal := decodeDispatch(data, logf)
	if refusal != nil {
		return *refusal, nil
	}
	return runHandler(ctx, envelope, handler, logf)
}

// decodeDispatch strictly decodes one DispatchEnvelope (by the default window: the version it
// carries) and refuses an event the host never dispatches; a refusal is the failed response to
// send instead of calling the handler, in the request's version (answerVersion). Shared by the v1
// runner (ServeIO) and the stream runner (ServeStreamIO).
func decodeDispatch(data []byte, logf func(string, ...any)) (DispatchEnvelope, *CallbackResponse) {
	envelope, carried, err := decodeDispatchIn(data)
	return dispatchOrRefusal(envelope, answerVersion(carried), err, logf)
}

// decodeDispatchIn is DecodeDispatchEnvelope also giving the version the envelope carries when
// the default window holds it ("" otherwise), valid or not.
func decodeDispatchIn(data []byte) (DispatchEnvelope, string, error) {
	root, carried, err := decodeDocument(dispatchEnvelopeType, data, DefaultDocumentLimits, Window{})
	if err != nil {
		return DispatchEnvelope{}, carried, err
	}
	return decodeDispatchEnvelope(root), carried, nil
}

// dispatchOrRefusal is decodeDispatch once decodeDispatchIn returned envelope and err; version is
// the one to answer in.
func dispatchOrRefusal(envelope DispatchEnvelope, version string, err error, logf func(string, ...any)) (DispatchEnvelope, *CallbackResponse) {
	refuse := func(code, message string) (DispatchEnvelope, *CallbackResponse) {
		response := failedWithWarning(version, runnerRejectClass, code, message)
		return DispatchEnvelope{}, &response
	}
	if err != nil {
		var invalid *ValidationError
		if !errors.As(err, &invalid) {
			logf("rejecting the request: %v", err)
			return refuse(runnerInvalidRequestCode, err.Error())
		}
		logf("rejecting the request: %s at %q: %s", invalid.Rule, invalid.Pointer, invalid.Message)
		return refuse(invalid.Rule, fmt.Sprintf("%q: %s", invalid.Pointer, invalid.Message))
	}
	if info, ok := envelope.Request.Event.Info(); !ok || info.NotificationOnly || !info.Dispatchable {
		message := fmt.Sprintf("event `%s` is never dispatched to a client (notification-only or not dispatchable)", envelope.Request.Event)
		logf("rejecting the request: %s", message)
		return refuse(runnerGuardCode, message)
	}
	return envelope, nil
}

// runHandler calls handler with a decoded envelope (a panic is recovered) and validates its
// response; the failed responses it returns instead are those of ServeIO. The bytes are the
// handler's response, validated and encoded in one go (validation writes the open maps once
// already), or nil for a failed response the caller still encodes.
func runHandler(ctx context.Context, envelope DispatchEnvelope, handler Handler, logf func(string, ...any)) (CallbackResponse, []byte) {
	done := make(chan handlerResult, 1)
	go func() { done <- callHandler(envelope, handler, logf) }()
	var result handlerResult
	select {
	case result = <-done:
	case <-ctx.Done():
		logf("handler did not return before the context ended: %v", ctx.Err())
		return failedWithWarning(envelope.SchemaVersion, runnerTimeoutClass, runnerTimeoutCode, ctx.Err().Error()), nil
	}
	return checkedResponse(make([]byte, 0, 512), result, envelope.SchemaVersion, logf)
}

// callHandler runs handler on the calling goroutine; a panic becomes the error of the result.
func callHandler(envelope DispatchEnvelope, handler Handler, logf func(string, ...any)) (result handlerResult) {
	defer func() {
		if recovered := recover(); recovered != nil {
			logf("handler panicked: %v\n%s", recovered, debug.Stack())
			result = handlerResult{err: fmt.Errorf("handler panicked: %v", recovered)}
		}
	}()
	response, err := handler(envelope.Request, envelope.Payloads)
	return handlerResult{response: response, err: err}
}

// checkedResponse is the response to send for what the handler returned (see runHandler), in
// version, the request's: the handler's response written in it (inVersion) and checked with the
// window closed to it. The bytes of a valid response are appended to into (which holds the frame
// head in stream mode).
func checkedResponse(into []byte, result handlerResult, version string, logf func(string, ...any)) (CallbackResponse, []byte) {
	if result.err != nil {
		logf("handler failed: %v", result.err)
		return failedWithWarning(version, runnerHandlerClass, runnerHandlerThrewCode, result.err.Error()), nil
	}
	response := inVersion(result.response, version)
	data, err := appendDocument(into, "CallbackResponse", response.toNode(), windowOf(version)) // encodeAnswer, appending
	if err != nil {
		var invalid *ValidationError
		if errors.As(err, &invalid) {
			logf("the handler's response is invalid: %s at %q: %s", invalid.Rule, invalid.Pointer, invalid.Message)
			return failedWithWarning(version, runnerHandlerClass, invalid.Rule, fmt.Sprintf("handler response %q: %s", invalid.Pointer, invalid.Message)), nil
		}
		logf("the handler's response is invalid: %v", err)
		return failedWithWarning(version, runnerHandlerClass, runnerInvalidResponseCode, err.Error()), nil
	}
	return response, data
}
