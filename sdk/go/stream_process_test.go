package lifeloop

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// streamHelperEnv makes the test binary a stream client (TestStreamHelperClient) instead of
// running tests: ServeStream itself, with its stdio diversion, signals and os.Exit.
const streamHelperEnv = "LIFELOOP_STREAM_HELPER"

// TestStreamHelperClient is the client process of TestStreamProcessExitsWhileAHandlerRuns: its
// handler prints to stdout (diverted to stderr), says on stderr that it runs, and then computes
// without returning or asking for its cancel.
func TestStreamHelperClient(t *testing.T) {
	if os.Getenv(streamHelperEnv) == "" {
		t.Skip("the client process of TestStreamProcessExitsWhileAHandlerRuns")
	}
	ServeStream(func(req CallbackRequest, payloads []PayloadEnvelope) (CallbackResponse, error) {
		if req.EventID == "evt-wait" {
			fmt.Println("a stray print")
			fmt.Fprintln(os.Stderr, "handler-running")
			for {
			}
		}
		return echoHandler(req, payloads)
	})
}

// The real ServeStream process exits within stream_client_exit_ms of stdin EOF and of SIGTERM
// while a handler computes without returning, and a print in a handler never reaches the wire:
// the only frame on stdout is the reply to the quick event.
func TestStreamProcessExitsWhileAHandlerRuns(t *testing.T) {
	for _, how := range []string{"eof", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestStreamHelperClient$")
			// GORACE: a -race binary otherwise sleeps 1 s at exit (atexit_sleep_ms).
			cmd.Env = append(os.Environ(), streamHelperEnv+"=1", "GORACE=atexit_sleep_ms=0")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }() // our child's group
			running := make(chan struct{})
			go func() {
				s := bufio.NewScanner(stderr)
				for s.Scan() {
					if s.Text() == "handler-running" {
						close(running)
					}
				}
			}()
			out := make(chan string, 4)
			go func() {
				data, _ := io.ReadAll(stdout)
				out <- string(data)
			}()
			_, _ = io.WriteString(stdin, eventFrame(`"h1"`)+"\n"+waitFrame(`"h2"`)+"\n")
			select {
			case <-running:
			case <-time.After(10 * time.Second):
				t.Fatal("the handler did not start within 10 s")
			}
			start := time.Now()
			if how == "eof" {
				stdin.Close()
			} else {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if elapsed := time.Since(start); elapsed > streamExitBound {
					t.Fatalf("exited %v after %s, over stream_client_exit_ms", elapsed, how)
				}
				if err != nil {
					t.Fatalf("exit: %v", err)
				}
			case <-time.After(streamExitBound + time.Second):
				t.Fatalf("no exit within stream_client_exit_ms of %s while a handler computes", how)
			}
			got := <-out
			if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"h1","result":`) {
				t.Fatalf("stdout %q, want only h1's reply", got)
			}
		})
	}
}
