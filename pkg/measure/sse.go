package measure

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// lineReader splits a response body into lines and stamps each line with the
// monotonic time of the Read that delivered it: the time the bytes left the
// socket, before any parsing. All lines complete in the buffer came from the
// most recent Read, because it only reads when no complete line is left.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	stamp      time.Time
	maxLine    int
	err        error
	// skipLF: the last line ended in a CR at the end of the buffered bytes;
	// a LF that comes next belongs to it (CRLF split across reads).
	skipLF bool
	// started: the start of the stream was checked for a UTF-8 byte-order
	// mark (only the first bytes can be one). It is set before any line is
	// returned: while it is unset the buffer holds at most a proper prefix
	// of the mark, which has no line ending.
	started bool
	// n counts the bytes read so far (the stream's size, for byteLimit).
	n int64
}

var bom = []byte("\xef\xbb\xbf")

// errLineTooLong reports a single SSE line larger than the reader's limit.
var errLineTooLong = errors.New("stream line too long")

func newLineReader(r io.Reader, buf []byte, maxLine int) *lineReader {
	return &lineReader{r: r, buf: buf[:cap(buf)], maxLine: maxLine}
}

// next returns the next line without its line ending and the time it was
// read. Lines end in LF, CRLF or a lone CR, as the SSE specification allows,
// and a UTF-8 byte-order mark at the start of the stream is dropped. The
// line is valid until the next call. At a clean end (io.EOF) a
// final line without a trailing newline is returned first; after any other
// read error (deadline, reset) such a line is cut, so it is dropped and the
// error returned, rather than a partial frame misread as malformed.
func (lr *lineReader) next() ([]byte, time.Time, error) {
	for {
		if lr.skipLF && lr.start < lr.end {
			if lr.buf[lr.start] == '\n' {
				lr.start++
			}
			lr.skipLF = false
		}
		if !lr.started {
			switch head := lr.buf[lr.start:lr.end]; {
			case len(head) >= len(bom):
				if bytes.HasPrefix(head, bom) {
					lr.start += len(bom)
				}
				lr.started = true
			case lr.err != nil || !bytes.HasPrefix(bom, head):
				lr.started = true // too short to be one, or cannot become one
			}
		}
		seg := lr.buf[lr.start:lr.end]
		i := bytes.IndexByte(seg, '\n')
		cr := seg
		if i >= 0 {
			cr = seg[:i]
		}
		if j := bytes.IndexByte(cr, '\r'); j >= 0 && j != i-1 { // a lone CR ends the line
			line := seg[:j]
			lr.start += j + 1
			lr.skipLF = j == len(seg)-1 // its LF may be in the next read
			return line, lr.stamp, nil
		}
		if i >= 0 {
			line := seg[:i]
			lr.start += i + 1
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, lr.stamp, nil
		}
		if lr.err != nil {
			if lr.start < lr.end && lr.err == io.EOF { // a last line with no newline
				line := lr.buf[lr.start:lr.end]
				lr.start = lr.end
				return line, lr.stamp, nil
			}
			return nil, lr.stamp, lr.err
		}
		if lr.start > 0 {
			lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
			lr.start = 0
		}
		if lr.end == len(lr.buf) {
			if len(lr.buf) >= lr.maxLine {
				lr.err = fmt.Errorf("%w: over %d bytes without a newline", errLineTooLong, lr.maxLine)
				lr.start, lr.end = 0, 0
				return nil, lr.stamp, lr.err
			}
			grown := make([]byte, min(2*len(lr.buf), lr.maxLine))
			copy(grown, lr.buf[:lr.end])
			lr.buf = grown
		}
		n, err := lr.r.Read(lr.buf[lr.end:])
		lr.stamp = time.Now()
		lr.end += n
		lr.n += int64(n)
		if err != nil {
			lr.err = err
		}
	}
}
