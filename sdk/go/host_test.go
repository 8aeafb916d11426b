package lifeloop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDefaultHostTimeoutIsTheLimit checks DefaultHostTimeout (the deadline of a command when
// Host.Timeout is zero) against limits.client_command_timeout_ms, read from spec/tables/limits.json
// of the repository independently of the generated constant it is built from.
func TestDefaultHostTimeoutIsTheLimit(t *testing.T) {
	path := filepath.Join("..", "..", "spec", "tables", "limits.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s (run the tests in sdk/go of a lifeloop-callback checkout): %v", path, err)
	}
	var table struct {
		Limits []struct {
			Name  string `json:"name"`
			Value int64  `json:"value"`
		} `json:"limits"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, limit := range table.Limits {
		if limit.Name == "client_command_timeout_ms" {
			if want := time.Duration(limit.Value) * time.Millisecond; DefaultHostTimeout != want {
				t.Fatalf("DefaultHostTimeout = %v, limits.client_command_timeout_ms = %v", DefaultHostTimeout, want)
			}
			return
		}
	}
	t.Fatalf("%s has no client_command_timeout_ms", path)
}
