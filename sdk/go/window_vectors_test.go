package lifeloop

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The cross-version vectors (generated/vectors/window/, one file per case) get the same verdict,
// rule id and pointer here as in the TypeScript and Python bindings, and for an outside-window
// refusal the same message: each document judged as its type by the reader window of the case
// (null: this SDK's default window, which must be the index's default_window).

type windowVector struct {
	ID             string   `json:"id"`
	Type           string   `json:"type"`
	Window         []string `json:"window"`
	Expect         string   `json:"expect"`
	Rule           *string  `json:"rule"`
	Pointer        *string  `json:"pointer"`
	Message        *string  `json:"message"`
	Description    string   `json:"description"`
	DocumentBase64 string   `json:"document_base64"`
}

func TestWindowVectors(t *testing.T) {
	dir := filepath.Join(vectorsDir(t), "window")
	text, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatalf("the cross-version vectors are missing (run `npm run generate` at the repository root): %v", err)
	}
	var index struct {
		Current       string   `json:"current"`
		DefaultWindow []string `json:"default_window"`
		Vectors       []struct {
			ID   string `json:"id"`
			Path string `json:"path"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(text, &index); err != nil {
		t.Fatalf("%s/index.json: %v", dir, err)
	}
	if index.Current != WireVersion || !reflect.DeepEqual(index.DefaultWindow, WireWindow) {
		t.Fatalf("the vectors are of current %s and window %v; this SDK's are %s and %v (regenerate)", index.Current, index.DefaultWindow, WireVersion, WireWindow)
	}
	if len(index.Vectors) == 0 {
		t.Fatal("index.json lists no vectors")
	}
	for _, entry := range index.Vectors {
		data, err := os.ReadFile(filepath.Join(dir, entry.Path))
		if err != nil {
			t.Fatal(err)
		}
		var v windowVector
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", entry.Path, err)
		}
		t.Run(v.ID, func(t *testing.T) { judgeWindowVector(t, v) })
	}
}

func judgeWindowVector(t *testing.T, v windowVector) {
	doc, err := base64.StdEncoding.DecodeString(v.DocumentBase64)
	if err != nil {
		t.Fatalf("document_base64: %v", err)
	}
	window := Window{}
	if v.Window != nil {
		if window, err = NewWindow(v.Window...); err != nil {
			t.Fatalf("window %v: %v", v.Window, err)
		}
		if !reflect.DeepEqual(window.Versions(), v.Window) {
			t.Fatalf("window %v is not newest first, once each (NewWindow gives %v)", v.Window, window.Versions())
		}
	}
	err = ValidateDocumentInWindow(v.Type, doc, DefaultDocumentLimits, window)
	if v.Expect == "valid" {
		if err != nil {
			t.Fatalf("%s: want valid, got %v", v.Description, err)
		}
		return
	}
	var invalid *ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("%s: want %v at %v, got %v", v.Description, deref(v.Rule), deref(v.Pointer), err)
	}
	if v.Rule == nil || v.Pointer == nil || invalid.Rule != *v.Rule || invalid.Pointer != *v.Pointer {
		t.Fatalf("%s: want %s at %q, got %s at %q (%s)", v.Description, deref(v.Rule), deref(v.Pointer), invalid.Rule, invalid.Pointer, invalid.Message)
	}
	if v.Message != nil && invalid.Message != *v.Message {
		t.Fatalf("%s: message %q, want %q", v.Description, invalid.Message, *v.Message)
	}
}
