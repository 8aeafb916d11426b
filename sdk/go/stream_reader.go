package lifeloop

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// FrameReader splits a byte stream into stream-mode frames (CALLBACK-001 §C as specified in
// spec/stream-protocol.md): a frame is the bytes up to, not including, one LF (0x0A). Nothing else
// ends a frame (CR, U+2028, U+2029 and U+0085 are ordinary bytes here), and nothing is decoded.
//
// Memory is bounded: the frame being read is never allowed past MaxBytes. The limit is counted on
// the bytes of the current frame since the last LF whatever the chunking, and the frame fails as
// soon as byte MaxBytes+1 arrives, without reading the rest of it. Buffering is linear: each byte
// is scanned once.
type FrameReader struct {
	r        io.Reader
	maxBytes int
	buf      []byte
	start    int
	end      int
	frame    []byte
	err      error
	// consumed counts the bytes of the frames already returned, their LFs included.
	consumed int64
}

// frameReadChunk is how many bytes one Read asks for.
const frameReadChunk = 64 * 1024

// FrameTooLargeError is a frame longer than the reader's MaxBytes: Offset is the stream offset
// (bytes) of the frame's first byte.
type FrameTooLargeError struct {
	MaxBytes int
	Offset   int64
}

// Error describes the frame.
func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("frame at stream byte %d exceeds the limit of %d bytes (no LF within the limit)", e.Offset, e.MaxBytes)
}

// ErrTruncatedFrame is a stream that ended inside a frame (bytes after the last LF).
var ErrTruncatedFrame = errors.New("the stream ended inside a frame (no LF after its last bytes)")

// NewFrameReader reads frames of at most maxBytes bytes (the LF not counted) from r.
func NewFrameReader(r io.Reader, maxBytes int) *FrameReader {
	return &FrameReader{r: r, maxBytes: maxBytes, buf: make([]byte, frameReadChunk)}
}

// Next returns the next frame without its LF. The slice is valid until the next call.
// At a clean end of the stream (EOF right after an LF, or an empty stream) it returns io.EOF; EOF
// inside a frame is ErrTruncatedFrame; an oversized frame is a *FrameTooLargeError; a read error is
// returned as is. Every error is final: later calls return it again.
func (fr *FrameReader) Next() ([]byte, error) {
	if fr.err != nil {
		return nil, fr.err
	}
	fr.frame = fr.frame[:0]
	for {
		if fr.start < fr.end {
			chunk := fr.buf[fr.start:fr.end]
			if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
				if len(fr.frame)+i > fr.maxBytes {
					return nil, fr.fail(&FrameTooLargeError{MaxBytes: fr.maxBytes, Offset: fr.consumed})
				}
				fr.start += i + 1
				fr.consumed += int64(len(fr.frame) + i + 1)
				if len(fr.frame) == 0 {
					return chunk[:i], nil
				}
				fr.frame = append(fr.frame, chunk[:i]...)
				return fr.frame, nil
			}
			if len(fr.frame)+len(chunk) > fr.maxBytes {
				return nil, fr.fail(&FrameTooLargeError{MaxBytes: fr.maxBytes, Offset: fr.consumed})
			}
			fr.frame = append(fr.frame, chunk...)
			fr.start = fr.end
		}
		n, err := fr.r.Read(fr.buf)
		fr.start, fr.end = 0, n
		if n > 0 {
			continue
		}
		if err == nil {
			continue
		}
		if err == io.EOF && len(fr.frame) > 0 {
			err = ErrTruncatedFrame
		}
		return nil, fr.fail(err)
	}
}

// Buffered returns the bytes already read from the stream but not yet returned as (part of) a
// frame: the frames a later Next will return, possibly ending inside one. The slice is valid
// until the next call of Next, and only on the goroutine that calls Next.
func (fr *FrameReader) Buffered() []byte { return fr.buf[fr.start:fr.end] }

func (fr *FrameReader) fail(err error) error {
	fr.err = err
	return err
}
