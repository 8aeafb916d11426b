package lifeloop

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The shared stream vectors (generated/vectors/stream/, spec/stream-protocol.md): each input fed to
// a FrameReader bounded by the vector's max_frame_bytes, whole, one byte per Read and 7 bytes per
// Read, every frame judged by decodeFrame, must yield exactly the vector's frames (kind, id with its
// JSON type, method) and then its violation rule, as the TypeScript and Python readers do.

type streamVector struct {
	ID            string           `json:"id"`
	Verdict       string           `json:"verdict"`
	Rule          *string          `json:"rule"`
	MaxFrameBytes int              `json:"max_frame_bytes"`
	Frames        []map[string]any `json:"frames"`
	InputBase64   string           `json:"input_base64"`
}

// chunkReader returns at most size bytes per Read.
type chunkReader struct {
	data []byte
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(c.size, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// readStream runs the reader and the judge over input; it returns the frames and the rule ("" for none).
func readStream(input []byte, maxFrameBytes, chunk int) ([]map[string]any, string) {
	reader := NewFrameReader(&chunkReader{data: input, size: chunk}, maxFrameBytes)
	frames := []map[string]any{}
	for {
		line, err := reader.Next()
		var tooLarge *FrameTooLargeError
		switch {
		case errors.Is(err, io.EOF):
			return frames, ""
		case errors.As(err, &tooLarge):
			return frames, RuleStreamFrameTooLarge
		case errors.Is(err, ErrTruncatedFrame):
			return frames, RuleStreamUnterminatedFrame
		case err != nil:
			return frames, "read error: " + err.Error()
		}
		f, violation := decodeFrame(line, nil, nil)
		if violation != nil {
			return frames, violation.Rule
		}
		got := map[string]any{"kind": f.kind.String()}
		if f.id != nil {
			if f.id.kind == kindString {
				got["id"] = f.id.str
			} else {
				got["id"] = json.Number(f.id.str)
			}
		}
		if f.method != "" {
			got["method"] = f.method
		}
		frames = append(frames, got)
	}
}

func TestStreamVectors(t *testing.T) {
	dir := filepath.Join(vectorsDir(t), "stream")
	text, err := os.ReadFile(filepath.Join(dir, "index.json"))
	var index struct {
		Vectors []struct {
			Path string `json:"path"`
		} `json:"vectors"`
	}
	if err != nil || json.Unmarshal(text, &index) != nil || len(index.Vectors) == 0 {
		t.Fatalf("cannot read %s/index.json: %v", dir, err)
	}
	valid, invalid := 0, 0
	for _, entry := range index.Vectors {
		data, err := os.ReadFile(filepath.Join(vectorsDir(t), entry.Path))
		if err != nil {
			t.Fatal(err)
		}
		decoder := json.NewDecoder(bytes.NewReader(data))
		decoder.UseNumber()
		var v streamVector
		if err := decoder.Decode(&v); err != nil {
			t.Fatalf("%s: %v", entry.Path, err)
		}
		input, err := base64.StdEncoding.DecodeString(v.InputBase64)
		if err != nil {
			t.Fatalf("%s: input_base64: %v", v.ID, err)
		}
		want := ""
		if v.Rule != nil {
			want = *v.Rule
			invalid++
		} else {
			valid++
		}
		for _, chunk := range []int{max(1, len(input)), 1, 7} {
			frames, rule := readStream(input, v.MaxFrameBytes, chunk)
			if rule != want || !reflect.DeepEqual(frames, v.Frames) {
				t.Errorf("%s (chunks of %d bytes): got frames %v and rule %q, want %v and %q", v.ID, chunk, frames, rule, v.Frames, want)
			}
		}
	}
	if valid < 5 || invalid < 20 {
		t.Fatalf("the corpus is too small: %d valid, %d invalid", valid, invalid)
	}
}

// TestStreamBoundsMatchTheSchemas ties the frame bounds the runner checks to the frame schemas
// (schemas/stream/), where they are defined.
func TestStreamBoundsMatchTheSchemas(t *testing.T) {
	read := func(name string) map[string]any {
		text, err := os.ReadFile(filepath.Join("..", "..", "schemas", "stream", name))
		if err != nil {
			t.Skipf("the schemas are not next to this package (%v)", err)
		}
		var schema map[string]any
		if err := json.Unmarshal(text, &schema); err != nil {
			t.Fatal(err)
		}
		return schema
	}
	prop := func(schema map[string]any, path ...string) map[string]any {
		for _, p := range path {
			schema = schema["properties"].(map[string]any)[p].(map[string]any)
		}
		return schema
	}
	method := prop(read("jsonrpc-request.schema.json"), "method")
	if method["maxLength"] != float64(streamMethodMaxLength) || method["not"].(map[string]any)["pattern"] != `^rpc\.` {
		t.Fatalf("method bounds differ from jsonrpc-request.schema.json: %v", method)
	}
	message := prop(read("jsonrpc-error-reply.schema.json"), "error", "message")
	if message["maxLength"] != float64(streamMessageMaxLength) {
		t.Fatalf("message bound differs from jsonrpc-error-reply.schema.json: %v", message)
	}
	if streamReservedPrefix != "rpc." {
		t.Fatalf("reserved prefix %q", streamReservedPrefix)
	}
}

// TestClientExitSignalsFollowTheTable ties the signals ServeStream listens for to
// spec/tables/stream-v2.json shutdown.client_exit_signals, read from the file itself.
func TestClientExitSignalsFollowTheTable(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "spec", "tables", "stream-v2.json"))
	if err != nil {
		t.Skipf("the spec tables are not next to this package (%v)", err)
	}
	var table struct {
		Shutdown struct {
			ClientExitSignals []string `json:"client_exit_signals"`
		} `json:"shutdown"`
	}
	if err := json.Unmarshal(text, &table); err != nil {
		t.Fatal(err)
	}
	got := clientExitSignals()
	if len(got) != len(table.Shutdown.ClientExitSignals) {
		t.Fatalf("ServeStream listens for %v, the table lists %v", got, table.Shutdown.ClientExitSignals)
	}
	for i, name := range table.Shutdown.ClientExitSignals {
		if want := signalsByName[name]; got[i] != want {
			t.Fatalf("signal %d: ServeStream listens for %v, the table says %s", i, got[i], name)
		}
	}
}
