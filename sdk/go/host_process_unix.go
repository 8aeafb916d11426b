//go:build unix

package lifeloop

import (
	"os/exec"
	"syscall"
)

// inOwnProcessGroup starts cmd in a process group of its own and makes its cancellation (the
// command's deadline) SIGKILL the whole group, as the Python helper does: a wrapper script's child
// that holds the pipes dies with it instead of running on after the call returned.
func inOwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group's id is the leader's pid; the group outlives its leader while a member lives.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
