package lifeloop

import (
	"testing"
	"time"
)

// TestDefaultHostTimeoutIsTheLimit checks DefaultHostTimeout (the deadline of a command when
// Host.Timeout is zero) against limits.client_command_timeout_ms, read from spec/tables/limits.json
// of the repository independently of the generated constant it is built from.
func TestDefaultHostTimeoutIsTheLimit(t *testing.T) {
	if want := time.Duration(specLimit(t, "client_command_timeout_ms")) * time.Millisecond; DefaultHostTimeout != want {
		t.Fatalf("DefaultHostTimeout = %v, limits.client_command_timeout_ms = %v", DefaultHostTimeout, want)
	}
}
