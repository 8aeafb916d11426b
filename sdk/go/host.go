package lifeloop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Client-initiated commands (spec/tables/client-initiated-commands.json), the part every group
// shares: Host (how to run the host CLI), HostError, running one command (over the stream pipe while
// serving a stream, stream_commands.go) and resultReader (reading what a command prints). The
// generated zz_commands.go holds one type per group with one method per command.

// DefaultHostTimeout bounds one host CLI command when Host.Timeout is zero: limits.client_command_timeout_ms.
const DefaultHostTimeout = LimitClientCommandTimeoutMs * time.Millisecond

// hostMessageLimit bounds the stderr text kept in a HostError, in bytes.
const hostMessageLimit = 4096

// Host says how to run the host CLI.
type Host struct {
	// Path is the host CLI program: a file path, or a name looked up on PATH. Empty means the
	// program the table names for the group (e.g. "lifeloop-callback"), or, while the process
	// serves a stream (ServeStream), a JSON-RPC request to the host over the pipe; then Timeout,
	// Env and Dir do not apply. Outside a stream, the group's override variable (e.g.
	// $LIFELOOP_CLI) replaces the table's program when it is set and non-empty.
	Path string

	// Timeout bounds one command from start to exit; its process group is killed when it expires and
	// the call returns a *HostError wrapping context.DeadlineExceeded. Zero means DefaultHostTimeout.
	Timeout time.Duration

	// Env holds extra "NAME=value" entries added to the current environment (later entries win),
	// e.g. "LIFELOOP_CONTINUATION_ROOT=/tmp/store".
	Env []string

	// Dir is the working directory of the command ("" means the current one).
	Dir string
}

// HostError is a host CLI command that did not succeed.
type HostError struct {
	// Args are the arguments after the program, e.g. [continuation get --thread t --key k].
	Args []string

	// ExitCode is the exit status, or -1 when the command did not exit on its own (timeout,
	// cancellation, start failure).
	ExitCode int

	// Usage is true for a usage error (the group's usage exit code, plain-text stderr).
	Usage bool

	// Code is the `error` member of the JSON error envelope the command printed on stderr (e.g.
	// "not_found"); "" when there was none.
	Code string

	// Details are the other members of that envelope (e.g. "max_bytes", "field", "detail").
	Details map[string]any

	// Message is the command's stderr (trimmed, at most 4096 bytes) or a description of the failure.
	Message string

	// Err is the cause when there is one: context.DeadlineExceeded or context.Canceled, the error
	// of starting the program, or the problem with malformed output.
	Err error
}

// Error describes the failure.
func (e *HostError) Error() string {
	command := strings.Join(e.Args, " ")
	switch {
	case e.Code != "":
		return fmt.Sprintf("lifeloop %s: %s (exit %d): %s", command, e.Code, e.ExitCode, e.Message)
	case e.Usage:
		return fmt.Sprintf("lifeloop %s: usage error (exit %d): %s", command, e.ExitCode, e.Message)
	case e.Err != nil:
		return fmt.Sprintf("lifeloop %s: %s: %v", command, e.Message, e.Err)
	}
	return fmt.Sprintf("lifeloop %s: exit %d: %s", command, e.ExitCode, e.Message)
}

// Unwrap returns Err.
func (e *HostError) Unwrap() error { return e.Err }

// IsHostErrorCode reports whether err is a *HostError whose envelope code is code (e.g.
// ContinuationErrorNotFound).
func IsHostErrorCode(err error, code string) bool {
	var hostErr *HostError
	return errors.As(err, &hostErr) && hostErr.Code == code
}

// hostOutput is what a successful command printed.
type hostOutput struct {
	stdout []byte
	stderr []byte
}

func trimMessage(b []byte) string {
	text := strings.TrimSpace(string(b))
	if len(text) > hostMessageLimit {
		text = strings.ToValidUTF8(text[:hostMessageLimit], "") + "..."
	}
	return text
}

// run executes one command. stdin is nil for commands that read nothing.
func (h Host) run(ctx context.Context, defaultProgram, programEnv string, args []string, stdin []byte, usageExitCode int) (hostOutput, error) {
	program := h.Path
	if program == "" {
		// In stream mode the command goes to the host over the pipe (stream_commands.go).
		if c := active.Load(); c != nil {
			return c.runOverStream(ctx, args, stdin)
		}
		program = os.Getenv(programEnv)
	}
	if program == "" {
		program = defaultProgram
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultHostTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	inOwnProcessGroup(cmd)
	cmd.Dir = h.Dir
	if len(h.Env) > 0 {
		cmd.Env = append(os.Environ(), h.Env...)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	out := hostOutput{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	if err == nil {
		return out, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return out, &HostError{Args: args, ExitCode: -1, Message: fmt.Sprintf("did not finish within %s", timeout), Err: ctxErr}
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		// The usual cause: the CLI is installed only in node_modules/.bin, which is not on PATH.
		return out, &HostError{Args: args, ExitCode: -1, Message: fmt.Sprintf("cannot run %q (set $%s or Host.Path to the host CLI by absolute path, e.g. $PWD/node_modules/.bin/lifeloop-callback)", program, programEnv), Err: err}
	}
	hostErr := &HostError{Args: args, ExitCode: exitErr.ExitCode(), Usage: exitErr.ExitCode() == usageExitCode, Message: trimMessage(out.stderr)}
	if !hostErr.Usage {
		if envelope, _, issue := parseDocument(bytes.TrimSpace(out.stderr), DocumentLimits{MaxBytes: math.MaxInt, MaxDepth: LimitMaxDepth}); issue == nil && envelope.kind == kindObject {
			if code, ok := envelope.get("error"); ok && code.kind == kindString {
				hostErr.Code = code.str
				hostErr.Details = map[string]any{}
				for i, k := range envelope.keys {
					if k != "error" {
						hostErr.Details[k] = envelope.values[i].toAny()
					}
				}
			}
		}
	}
	return out, hostErr
}

// resultReader reads the members of a command's JSON output; the first problem is kept in *err.
type resultReader struct {
	n   *node
	err *error
}

func newResultReader(text []byte) *resultReader {
	var err error
	r := &resultReader{err: &err}
	n, _, issue := parseDocument(bytes.TrimSpace(text), DocumentLimits{MaxBytes: math.MaxInt, MaxDepth: LimitMaxDepth})
	switch {
	case issue != nil:
		err = fmt.Errorf("output is not one JSON document: %s at %q: %s", issue.Rule, issue.Pointer, issue.Message)
	case n.kind != kindObject:
		err = errors.New("output is not a JSON object")
	default:
		r.n = n
	}
	return r
}

func (r *resultReader) member(name string, kind nodeKind, nullable bool) *node {
	if *r.err != nil || r.n == nil {
		return nil
	}
	m, ok := r.n.get(name)
	switch {
	case !ok:
		*r.err = fmt.Errorf("output lacks member %q", name)
	case nullable && m.kind == kindNull:
		return nil
	case m.kind != kind:
		*r.err = fmt.Errorf("output member %q has the wrong type", name)
	default:
		return m
	}
	return nil
}

func (r *resultReader) string(name string) string {
	if m := r.member(name, kindString, false); m != nil {
		return m.str
	}
	return ""
}

func (r *resultReader) uint(name string) uint64 {
	if p := r.optUint(name, false); p != nil {
		return *p
	}
	return 0
}

func (r *resultReader) optUint(name string, nullable bool) *uint64 {
	m := r.member(name, kindNumber, nullable)
	if m == nil {
		return nil
	}
	v, err := strconv.ParseUint(m.str, 10, 64)
	if err != nil {
		*r.err = fmt.Errorf("output member %q is not an unsigned integer: %s", name, m.str)
		return nil
	}
	return &v
}

func (r *resultReader) objects(name string) []*resultReader {
	m := r.member(name, kindArray, false)
	if m == nil {
		return nil
	}
	out := make([]*resultReader, 0, len(m.items))
	for _, item := range m.items {
		if item.kind != kindObject {
			*r.err = fmt.Errorf("output member %q holds a non-object", name)
			return nil
		}
		out = append(out, &resultReader{n: item, err: r.err})
	}
	return out
}

// outputError reports output that does not have the documented shape.
func outputError(args []string, problem error) error {
	return &HostError{Args: args, ExitCode: 0, Message: "unexpected output", Err: problem}
}

// diagnosticLines splits stderr into its non-empty lines.
func diagnosticLines(stderr []byte) []string {
	var lines []string
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	return lines
}
