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
	// Non-blocking descriptors make the files pollable: the reader parks on the runtime's poller
	// instead of holding a thread in read(2), so an event costs no thread hand-off (the private
	// descriptors' open file descriptions are the wire's alone after the diversion). When that
	// fails the files stay blocking, which is slower but the same protocol.
	_ = syscall.SetNonblock(in, true)
	_ = syscall.SetNonblock(out, true)
	return os.NewFile(uintptr(in), "wire-stdin"), os.NewFile(uintptr(out), "wire-stdout")
}
