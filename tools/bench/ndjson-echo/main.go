// Command ndjson-echo is the floor of the stream benchmark (tools/bench/stream.ts): the cheapest
// client an NDJSON JSON-RPC loop can have. It reads LF-terminated lines from stdin and answers each
// with one fixed success reply carrying the request's id, with no JSON parsing and no validation,
// so the benchmark can tell how much of a stream round trip is the pipes and the scheduler and how
// much is our framing, decoding and validation.
//
// Usage: ndjson-echo RESULT_JSON. RESULT_JSON is the `result` every reply carries (the benchmark
// passes a minimal valid CallbackResponse built from the current wire version). The id is copied
// byte for byte from the first `"id":` member of the line (a string or a number). It exits 0 at
// stdin EOF, 64 without its argument. Standard library only; build with `go build`.
package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"time"
)

func idOf(line []byte) []byte {
	at := bytes.Index(line, []byte(`"id":`))
	if at < 0 {
		return []byte("null")
	}
	rest := line[at+5:]
	if len(rest) > 0 && rest[0] == '"' {
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 {
			return []byte("null")
		}
		return rest[:end+2]
	}
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return []byte("null")
	}
	return rest[:end]
}

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: ndjson-echo RESULT_JSON\n")
		os.Exit(64)
	}
	replyTail := `,"result":` + os.Args[1] + "}\n"
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := make([]byte, 0, 4096)
	// The same read pacing as the Go SDK's stream runner (sdk/go/stream_read.go,
	// readPace): a pass through the scheduler at most every 4 ms while lines keep coming, so the
	// runtime's monitor thread never retakes the P from read(2). Without it this loop paid about
	// 0.6 extra context switches and 4-8 µs of CPU per line, and the floor must not carry a cost
	// the runner it is compared with has shed.
	paced := time.Now()
	for {
		line, err := in.ReadSlice('\n')
		if now := time.Now(); now.Sub(paced) >= 4*time.Millisecond {
			runtime.Gosched()
			paced = now
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			out = append(out[:0], `{"jsonrpc":"2.0","id":`...)
			out = append(out, idOf(line)...)
			out = append(out, replyTail...)
			if _, werr := os.Stdout.Write(out); werr != nil {
				os.Exit(1)
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}
