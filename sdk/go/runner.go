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
// Return a CallbackResponse (SchemaVersion may be left empty: the runner fills in WireVersion) or
// an error. An error becomes a failed response with failure class runnerHandlerClass and its
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
//  2. It decodes the DispatchEnvelope strictly (DecodeDispatchEnvelope) and refuses an event the
//     host never dispatches.
//  3. It calls handler, then validates the handler's response (see Handler).
//  4. It writes the response as one compact JSON line to stdout, flushes stdout when it has a
//     Flush method, and returns 0. It returns 1 only when the response cannot be written.
//
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
		data, err = EncodeCallbackResponse(response)
	}
	if err != nil {
		logf("internal: the runner built an invalid response: %v", err)
		data, _ = EncodeCallbackResponse(FailedResponse(runnerHandlerClass))
	}
	if len(data) > LimitMaxResponseBytes {
		data, _ = EncodeCallbackResponse(responseTooLarge(len(data), logf))
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

// responseTooLarge is the failed response that replaces a handler's response of size bytes, over
// limits.max_response_bytes (the runner-outcomes row response_too_large), in both transports.
func responseTooLarge(size int, logf func(string, ...any)) CallbackResponse {
	message := fmt.Sprintf("the handler's response is %d bytes, over limits.max_response_bytes (%d bytes)", size, LimitMaxResponseBytes)
	logf("the handler's response is invalid: %s", message)
	return failedWithWarning(runnerHandlerClass, RuleJSONMaxBytes, message)
}

// NewResponse returns a CallbackResponse with the current wire version and the given status
// (no failure class, no retry class).
func NewResponse(status ReceiptStatus) CallbackResponse {
	return CallbackResponse{SchemaVersion: WireVersion, Status: status}
}

// FailedResponse returns a failed CallbackResponse with failure class fc and its default retry
// class (spec/tables/failure-retry-defaults.json).
func FailedResponse(fc FailureClass) CallbackResponse {
	retry := fc.DefaultRetryClass()
	return CallbackResponse{SchemaVersion: WireVersion, Status: ReceiptStatusFailed, FailureClass: &fc, RetryClass: &retry}
}

// warningLimit bounds the warning messages the runner writes, in code points.
const warningLimit = LimitRunnerWarningMessageCodePoints

// failedWithWarning is FailedResponse plus one Warning.
func failedWithWarning(fc FailureClass, code, message string) CallbackResponse {
	if utf8.RuneCountInString(message) > warningLimit {
		message = string([]rune(message)[:warningLimit]) + "..."
	}
	response := FailedResponse(fc)
	response.Warnings = []Warning{
		{Code: code, Message: message},
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
		return failedWithWarning(runnerReadClass, runnerReadCode, err.Error()), nil
	}
	if oversized {
		message := fmt.Sprintf("the request exceeds limits.max_request_bytes (%d bytes)", LimitMaxRequestBytes)
		logf("rejecting the request: %s: %s", RuleJSONMaxBytes, message)
		return failedWithWarning(runnerRejectClass, RuleJSONMaxBytes, message), nil
	}
	envelope, refusal := decodeDispatch(data, logf)
	if refusal != nil {
		return *refusal, nil
	}
	return runHandler(ctx, envelope, handler, logf)
}

// decodeDispatch strictly decodes one DispatchEnvelope and refuses an event the host never
// dispatches; a refusal is the failed response to send instead of calling the handler. Shared by
// the v1 runner (ServeIO) and the stream runner (ServeStreamIO).
func decodeDispatch(data []byte, logf func(string, ...any)) (DispatchEnvelope, *CallbackResponse) {
	envelope, err := DecodeDispatchEnvelope(data)
	return dispatchOrRefusal(envelope, err, logf)
}

// dispatchOrRefusal is decodeDispatch once DecodeDispatchEnvelope returned envelope and err.
func dispatchOrRefusal(envelope DispatchEnvelope, err error, logf func(string, ...any)) (DispatchEnvelope, *CallbackResponse) {
	refuse := func(code, message string) (DispatchEnvelope, *CallbackResponse) {
		response := failedWithWarning(runnerRejectClass, code, message)
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
		return failedWithWarning(runnerTimeoutClass, runnerTimeoutCode, ctx.Err().Error()), nil
	}
	return checkedResponse(make([]byte, 0, 512), result, logf)
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

// checkedResponse is the response to send for what the handler returned (see runHandler). The
// bytes of a valid response are appended to into (which holds the frame head in stream mode).
func checkedResponse(into []byte, result handlerResult, logf func(string, ...any)) (CallbackResponse, []byte) {
	if result.err != nil {
		logf("handler failed: %v", result.err)
		return failedWithWarning(runnerHandlerClass, runnerHandlerThrewCode, result.err.Error()), nil
	}
	response := result.response
	if response.SchemaVersion == "" {
		response.SchemaVersion = WireVersion
	}
	data, err := appendDocument(into, "CallbackResponse", response.toNode()) // EncodeCallbackResponse, appending
	if err != nil {
		var invalid *ValidationError
		if errors.As(err, &invalid) {
			logf("the handler's response is invalid: %s at %q: %s", invalid.Rule, invalid.Pointer, invalid.Message)
			return failedWithWarning(runnerHandlerClass, invalid.Rule, fmt.Sprintf("handler response %q: %s", invalid.Pointer, invalid.Message)), nil
		}
		logf("the handler's response is invalid: %v", err)
		return failedWithWarning(runnerHandlerClass, runnerInvalidResponseCode, err.Error()), nil
	}
	return response, data
}
