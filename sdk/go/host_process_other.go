//go:build !unix

package lifeloop

import "os/exec"

// inOwnProcessGroup leaves cmd as it is where there are no process groups: its deadline kills the
// process itself (exec.CommandContext's default).
func inOwnProcessGroup(cmd *exec.Cmd) {}
