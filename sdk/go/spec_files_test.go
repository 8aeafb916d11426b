package lifeloop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// specLimit reads limits.<name> from spec/tables/limits.json of the repository, independently of
// the generated Limit* constants, so that a test can compare a binding's value with the table's.
// It fails the test when the file cannot be read or has no such row.
func specLimit(t *testing.T, name string) int64 {
	t.Helper()
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
		if limit.Name == name {
			return limit.Value
		}
	}
	t.Fatalf("%s has no %s", path, name)
	return 0
}
