package lifeloop

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// These tests drive the real reference CLI of the continuation store: lifeloop-cli 0.5.0, its last
// release with the store (removed in 0.6.0). LIFELOOP_REF_BIN overrides its location (default:
// .cache/lifeloop-ref-0.5.0/bin/lifeloop at the repository root).

func referenceCLI(t *testing.T) string {
	t.Helper()
	path := os.Getenv("LIFELOOP_REF_BIN")
	if path == "" {
		abs, err := filepath.Abs(filepath.Join("..", "..", ".cache", "lifeloop-ref-0.5.0", "bin", "lifeloop"))
		if err != nil {
			t.Fatal(err)
		}
		path = abs
	}
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		t.Fatalf("reference CLI not found at %s: from the repository root run `cargo install lifeloop-cli --version 0.5.0 --locked --root .cache/lifeloop-ref-0.5.0` (or set LIFELOOP_REF_BIN)", path)
	}
	return path
}

// storeCommands returns continuation commands bound to the reference CLI and a fresh store.
func storeCommands(t *testing.T, extraEnv ...string) ContinuationCommands {
	root := t.TempDir()
	env := append([]string{"LIFELOOP_CONTINUATION_ROOT=" + root}, extraEnv...)
	return ContinuationCommands{Host: Host{Path: referenceCLI(t), Timeout: 20 * time.Second, Env: env}}
}

func expectHostError(t *testing.T, err error, code string, exitCode int) *HostError {
	t.Helper()
	var hostErr *HostError
	if !errors.As(err, &hostErr) || hostErr.Code != code || hostErr.ExitCode != exitCode {
		t.Fatalf("expected host error %q (exit %d), got %v", code, exitCode, err)
	}
	if !IsHostErrorCode(err, code) {
		t.Fatalf("IsHostErrorCode(%q) is false", code)
	}
	return hostErr
}

func TestContinuationRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := storeCommands(t)
	blob := []byte("hello\x00bin\n")
	ttl := uint64(600)
	put, err := c.Put(ctx, "t1", "k1", blob, &ContinuationPutOptions{ClientID: "ccd", TTLS: &ttl})
	if err != nil || put.Status != "ok" || put.WrittenAtEpochS == 0 {
		t.Fatalf("put: %+v %v", put, err)
	}
	if _, err := c.Put(ctx, "t1", "k2", nil, nil); err != nil {
		t.Fatalf("put without options and with an empty blob: %v", err)
	}
	got, err := c.Get(ctx, "t1", "k1", nil)
	if err != nil || !bytes.Equal(got.Blob, blob) || got.ClientID != "ccd" || got.TTLS == nil || *got.TTLS != ttl || got.WrittenAtEpochS != put.WrittenAtEpochS {
		t.Fatalf("get: %+v %v", got, err)
	}
	got, err = c.Get(ctx, "t1", "k2", &ContinuationGetOptions{})
	if err != nil || len(got.Blob) != 0 || got.ClientID != "unknown" || got.TTLS != nil {
		t.Fatalf("get k2: %+v %v", got, err)
	}
	list, err := c.List(ctx, "t1")
	if err != nil || list.Thread != "t1" || len(list.Keys) != 2 {
		t.Fatalf("list: %+v %v", list, err)
	}
	sort.Slice(list.Keys, func(i, j int) bool { return list.Keys[i].Key < list.Keys[j].Key })
	if list.Keys[0].Key != "k1" || list.Keys[0].ClientID != "ccd" || *list.Keys[0].TTLS != ttl || list.Keys[1].TTLS != nil {
		t.Fatalf("list entries: %+v", list.Keys)
	}
	if drop, err := c.Drop(ctx, "t1", "k2", nil); err != nil || drop.Status != "ok" {
		t.Fatalf("drop: %+v %v", drop, err)
	}
	dropped, err := c.DropThread(ctx, "t1")
	if err != nil || dropped.DroppedCount != 1 || dropped.Status != "ok" {
		t.Fatalf("drop-thread: %+v %v", dropped, err)
	}
	if dropped, err = c.DropThread(ctx, "t1"); err != nil || dropped.DroppedCount != 0 {
		t.Fatalf("second drop-thread: %+v %v", dropped, err)
	}
}

func TestContinuationErrors(t *testing.T) {
	ctx := context.Background()
	c := storeCommands(t)
	_, err := c.Get(ctx, "t", "missing", nil)
	expectHostError(t, err, ContinuationErrorNotFound, 3)

	if _, err := c.Put(ctx, "t", "k", []byte("x"), &ContinuationPutOptions{ClientID: "ccd"}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(ctx, "t", "k", &ContinuationGetOptions{RequireClientID: "other"})
	mismatch := expectHostError(t, err, ContinuationErrorClientIDMismatch, 3)
	if mismatch.Details["actual"] != "ccd" || mismatch.Details["required"] != "other" {
		t.Fatalf("details: %v", mismatch.Details)
	}

	_, err = c.Put(ctx, "a/b", "k", nil, nil)
	invalid := expectHostError(t, err, ContinuationErrorInvalidIdentifier, 3)
	if invalid.Details["field"] != "thread" {
		t.Fatalf("details: %v", invalid.Details)
	}

	small := storeCommands(t, "LIFELOOP_CONTINUATION_MAX_BYTES=4")
	_, err = small.Put(ctx, "t", "k", []byte("12345"), nil)
	tooLarge := expectHostError(t, err, ContinuationErrorBlobTooLarge, 3)
	if tooLarge.Details["max_bytes"] != float64(4) {
		t.Fatalf("details: %v", tooLarge.Details)
	}

	usage := storeCommands(t, "LIFELOOP_CONTINUATION_MAX_BYTES=lots")
	_, err = usage.Put(ctx, "t", "k", nil, nil)
	var hostErr *HostError
	if !errors.As(err, &hostErr) || !hostErr.Usage || hostErr.ExitCode != 2 || hostErr.Code != "" || hostErr.Message == "" {
		t.Fatalf("expected a usage error, got %#v", err)
	}
}

// script writes an executable shell script standing in for the host CLI.
func script(t *testing.T, body string) string {
	path := filepath.Join(t.TempDir(), "fake-lifeloop")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHostFailures(t *testing.T) {
	ctx := context.Background()
	slow := ContinuationCommands{Host: Host{Path: script(t, "exec sleep 30"), Timeout: 200 * time.Millisecond}}
	_, err := slow.List(ctx, "t")
	var hostErr *HostError
	if !errors.As(err, &hostErr) || !errors.Is(err, context.DeadlineExceeded) || hostErr.ExitCode != -1 {
		t.Fatalf("expected a timeout, got %v", err)
	}

	missing := ContinuationCommands{Host: Host{Path: filepath.Join(t.TempDir(), "no-such-program")}}
	_, err = missing.List(ctx, "t")
	if !errors.As(err, &hostErr) || hostErr.ExitCode != -1 || hostErr.Err == nil {
		t.Fatalf("expected a start failure, got %v", err)
	}
	// The start failure says how to point the SDK at the CLI (often only in node_modules/.bin).
	if msg := err.Error(); !strings.Contains(msg, "$"+*SpecClientInitiatedCommands.Groups[0].CLIProgramEnvironment) || !strings.Contains(msg, "Host.Path") || !strings.Contains(msg, "node_modules/.bin/lifeloop-callback") {
		t.Fatalf("start failure gives no hint: %v", msg)
	}

	garbage := ContinuationCommands{Host: Host{Path: script(t, "echo not json")}}
	if _, err := garbage.List(ctx, "t"); !errors.As(err, &hostErr) || hostErr.ExitCode != 0 || hostErr.Err == nil {
		t.Fatalf("expected malformed output, got %v", err)
	}

	wrongShape := ContinuationCommands{Host: Host{Path: script(t, `echo '{"status":"ok"}'`)}}
	if _, err := wrongShape.DropThread(ctx, "t"); !errors.As(err, &hostErr) || hostErr.Err == nil {
		t.Fatalf("expected a missing member, got %v", err)
	}

	plain := ContinuationCommands{Host: Host{Path: script(t, "echo oops >&2; exit 3")}}
	if _, err := plain.List(ctx, "t"); !errors.As(err, &hostErr) || hostErr.ExitCode != 3 || hostErr.Code != "" || hostErr.Message != "oops" {
		t.Fatalf("expected a plain failure, got %#v", err)
	}
}

// ourCLI writes a one-line wrapper that runs this repository's lifeloop-callback CLI (dist/, built by
// npm run build), so that one program path names it.
func ourCLI(t *testing.T) string {
	t.Helper()
	main, err := filepath.Abs(filepath.Join("..", "..", "dist", "runtime", "cli", "main.js"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not on PATH: %v", err)
	}
	if _, err := os.Stat(main); err != nil {
		t.Fatalf("%s is missing: run npm run build", main)
	}
	wrapper := filepath.Join(t.TempDir(), "lifeloop-callback")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+node+" "+main+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper
}

// The program defaults to the table's ("lifeloop-callback": the group is this toolkit's extension,
// which the reference's lifeloop no longer ships); the group's variable overrides it; Host.Path wins
// over both. The same calls work against the reference CLI and ours.
func TestContinuationProgramOverride(t *testing.T) {
	ctx := context.Background()
	variable := *SpecClientInitiatedCommands.Groups[0].CLIProgramEnvironment
	for _, program := range []string{referenceCLI(t), ourCLI(t)} {
		t.Setenv(variable, program)
		c := ContinuationCommands{Host: Host{Timeout: 20 * time.Second, Env: []string{"LIFELOOP_CONTINUATION_ROOT=" + t.TempDir()}}}
		if _, err := c.Put(ctx, "t", "k", []byte("v\x00"), &ContinuationPutOptions{ClientID: "me"}); err != nil {
			t.Fatalf("%s: put: %v", program, err)
		}
		got, err := c.Get(ctx, "t", "k", nil)
		if err != nil || !bytes.Equal(got.Blob, []byte("v\x00")) || got.ClientID != "me" {
			t.Fatalf("%s: get: %+v %v", program, got, err)
		}
		_, err = c.Get(ctx, "t", "missing", nil)
		expectHostError(t, err, ContinuationErrorNotFound, 3)
	}
	t.Setenv(variable, filepath.Join(t.TempDir(), "no-such-program"))
	c := ContinuationCommands{Host: Host{Path: referenceCLI(t), Env: []string{"LIFELOOP_CONTINUATION_ROOT=" + t.TempDir()}}}
	if _, err := c.List(ctx, "t"); err != nil {
		t.Fatalf("Host.Path must win over $%s: %v", variable, err)
	}
	t.Setenv(variable, "")
	t.Setenv("PATH", t.TempDir())
	_, err := ContinuationCommands{}.List(ctx, "t")
	var hostErr *HostError
	if !errors.As(err, &hostErr) || hostErr.ExitCode != -1 || !strings.Contains(hostErr.Message, `"lifeloop-callback"`) {
		t.Fatalf("the default program is lifeloop-callback: %v", err)
	}
}

// TestHostTimeoutKillsTheProcessGroup runs a wrapper CLI whose child holds stdout: at the deadline
// the helper kills the whole process group (as the Python helper does), so the child does not run
// on after the call returned (issue 25).
func TestHostTimeoutKillsTheProcessGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see the child")
	}
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	wrapper := ContinuationCommands{Host: Host{Path: script(t, "sleep 30 &\necho $! > "+pidFile+"\nwait"), Timeout: time.Second}}
	started := time.Now()
	_, err := wrapper.List(context.Background(), "t")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expected a timeout, got %v", err)
	}
	// The deadline plus exec's WaitDelay (1 s) and a generous margin for a loaded machine.
	if took := time.Since(started); took > 10*time.Second {
		t.Fatalf("the call took %s with a 1 s timeout", took)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(raw))
	// Gone, or a zombie nobody reaped yet (the wrapper that would have is dead): either way not running.
	running := func() bool {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return false
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		return len(fields) > 0 && fields[0] != "Z"
	}
	for deadline := time.Now().Add(5 * time.Second); running() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if running() {
		_ = exec.Command("kill", "-9", pid).Run()
		t.Fatalf("the wrapper's child %s is still running after the call timed out", pid)
	}
}
