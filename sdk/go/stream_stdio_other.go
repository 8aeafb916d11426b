//go:build !linux

package lifeloop

import "os"

// divertStdio keeps the wire on stdin and stdout and redirects os.Stdout to stderr (descriptor
// diversion is implemented on Linux only; see ServeStream).
func divertStdio() (wireIn, wireOut *os.File) {
	wire := os.Stdout
	os.Stdout = os.Stderr
	return os.Stdin, wire
}
