package lifeloop

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// The shared vectors (generated/vectors/, one file per case) must get the same verdict, rule id and
// pointer here as in the TypeScript and Python bindings. LIFELOOP_VECTORS_DIR overrides the location.

type sharedVector struct {
	ID             string  `json:"id"`
	Type           string  `json:"type"`
	Expect         string  `json:"expect"`
	Rule           *string `json:"rule"`
	Pointer        *string `json:"pointer"`
	Description    string  `json:"description"`
	DocumentBase64 string  `json:"document_base64"`
}

func vectorsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LIFELOOP_VECTORS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "generated", "vectors")
	}
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err != nil {
		t.Fatalf("shared vectors not found at %s (%v): run `npm run generate` at the repository root", dir, err)
	}
	return dir
}

func loadVectors(t *testing.T) []sharedVector {
	t.Helper()
	dir := vectorsDir(t)
	all, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil || len(all) == 0 {
		t.Fatalf("no vector files under %s (%v)", dir, err)
	}
	// The stream vectors (vectors/stream/) and the cross-version vectors (vectors/window/) have
	// their own index and format.
	var files []string
	for _, file := range all {
		if folder := filepath.Base(filepath.Dir(file)); folder != "stream" && folder != "window" {
			files = append(files, file)
		}
	}
	sort.Strings(files)
	var index struct {
		Vectors []struct {
			ID string `json:"id"`
		} `json:"vectors"`
	}
	text, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil || json.Unmarshal(text, &index) != nil {
		t.Fatalf("cannot read %s/index.json: %v", dir, err)
	}
	if len(index.Vectors) != len(files) {
		t.Fatalf("index.json lists %d vectors but %d files exist", len(index.Vectors), len(files))
	}
	vectors := make([]sharedVector, 0, len(files))
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var v sharedVector
		if err := json.Unmarshal(text, &v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		vectors = append(vectors, v)
	}
	return vectors
}

func TestSharedVectors(t *testing.T) {
	vectors := loadVectors(t)
	counts := map[string]int{}
	for _, v := range vectors {
		t.Run(v.ID, func(t *testing.T) {
			doc, err := base64.StdEncoding.DecodeString(v.DocumentBase64)
			if err != nil {
				t.Fatalf("document_base64: %v", err)
			}
			err = ValidateDocument(v.Type, doc)
			switch v.Expect {
			case "valid":
				if err != nil {
					t.Fatalf("%s: expected valid, got %v", v.Description, err)
				}
				first, second, encoded, err := roundTrip(v.Type, doc)
				if err != nil {
					t.Fatalf("round trip: %v (encoded %s)", err, encoded)
				}
				if !reflect.DeepEqual(first, second) {
					t.Fatalf("round trip changed the value:\nfirst  %#v\nsecond %#v\nencoded %s", first, second, encoded)
				}
			case "invalid":
				var invalid *ValidationError
				if !errors.As(err, &invalid) {
					t.Fatalf("%s: expected invalid (%v at %v), got %v", v.Description, deref(v.Rule), deref(v.Pointer), err)
				}
				// A null pointer leaves the pointer unspecified (e.g. for json.syntax, whose pointer
				// depends on where a scanner gives up).
				if v.Rule == nil || invalid.Rule != *v.Rule || (v.Pointer != nil && invalid.Pointer != *v.Pointer) {
					t.Fatalf("%s: expected %s at %q, got %s at %q (%s)", v.Description, deref(v.Rule), deref(v.Pointer), invalid.Rule, invalid.Pointer, invalid.Message)
				}
				if invalid.Type != v.Type {
					t.Fatalf("error names type %s, want %s", invalid.Type, v.Type)
				}
			default:
				t.Fatalf("unknown expect %q", v.Expect)
			}
		})
		counts[v.Expect]++
	}
	t.Logf("%d shared vectors (%d valid, %d invalid)", len(vectors), counts["valid"], counts["invalid"])
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
