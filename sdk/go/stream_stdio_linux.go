//go:build linux

package lifeloop

import (
	"os"
	"syscall"
)

// divertStdio moves the wire to private descriptors and points fd 1 at stderr and fd 0 at
// /dev/null (see ServeStream). When a step fails, the wire stays on fds 0 and 1 and only os.Stdout
// is redirected, as the v1 runner does.
func divertStdio() (wireIn, wireOut *os.File) {
	in, errIn := syscall.Dup(0)
	out, errOut := syscall.Dup(1)
	null, errNull := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if errIn != nil || errOut != nil || errNull != nil || syscall.Dup3(2, 1, 0) != nil || syscall.Dup3(null, 0, 0) != nil {
		for _, fd := range []int{in, out, null} {
			if fd > 2 {
				syscall.Close(fd)
			}
		}
		wire := os.Stdout
		os.Stdout = os.Stderr
		return os.Stdin, wire
	}
	syscall.Close(null)
	syscall.CloseOnExec(in)
	syscall.CloseOnExec(out)
	// The descriptors keep the mode the host gave them (blocking, from a host that spawns as Node
	// and most runtimes do): the reading goroutine waits in read(2) and the host's write wakes that
	// thread directly, and the handler runs on it (see startEvent). Parking on the runtime's poller
	// instead costs an epoll round and a scheduler hand-off per event: measured on the stream
	// benchmark (tools/bench/stream.ts), about 40 µs more client CPU per event.
	return os.NewFile(uintptr(in), "wire-stdin"), os.NewFile(uintptr(out), "wire-stdout")
}
