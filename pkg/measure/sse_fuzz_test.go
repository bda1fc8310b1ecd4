package measure

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

// chunkedReader hands out data in the given chunk sizes (cycled), then
// io.EOF, and records when each Read began and returned.
type chunkedReader struct {
	data        []byte
	sizes       []int
	n           int
	enter, exit []time.Time
	ends        []int // offset in data after each Read
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	r.enter = append(r.enter, time.Now())
	defer func() { r.exit = append(r.exit, time.Now()) }()
	if len(r.data) == 0 {
		r.ends = append(r.ends, r.n)
		return 0, io.EOF
	}
	size := min(r.sizes[len(r.enter)%len(r.sizes)], len(p), len(r.data))
	copy(p, r.data[:size])
	r.data = r.data[size:]
	r.n += size
	r.ends = append(r.ends, r.n)
	return size, nil
}

// refLine is a line as the SSE reader must return it, with the offset just
// past its last byte (its line ending's first byte, or the end of the data).
type refLine struct {
	text       []byte
	end        int
	terminated bool // by LF, CRLF or CR
}

// refLines splits data as the SSE specification does: at LF, CRLF or a lone
// CR, after a UTF-8 byte-order mark at the very start; a last line without
// an ending is kept as it is. tooLong is the index of the first line with
// maxLine or more bytes before its ending (-1 for none).
func refLines(data []byte, maxLine int) (lines []refLine, tooLong int) {
	tooLong = -1
	off := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		off = 3
	}
	for off < len(data) {
		k := bytes.IndexAny(data[off:], "\r\n")
		raw, end, next := data[off:], len(data), len(data)
		if k >= 0 {
			raw, end, next = data[off:off+k], off+k+1, off+k+1
			if data[off+k] == '\r' && next < len(data) && data[next] == '\n' {
				next++
			}
		}
		if len(raw) >= maxLine {
			return lines, len(lines)
		}
		lines = append(lines, refLine{text: raw, end: end, terminated: k >= 0})
		off = next
	}
	return lines, tooLong
}

// FuzzLineReader splits arbitrary bytes into arbitrary reads: the SSE line
// reader returns the lines of the whole (split at LF, CRLF or CR, after a
// byte-order mark), each
// stamped with the time of the Read that completed it; a line of maxLine
// bytes or more is an error, not a panic or an unbounded buffer.
func FuzzLineReader(f *testing.F) {
	for _, s := range []struct {
		data  string
		sizes []byte
	}{
		{"data: {\"choices\":[]}\n\ndata: [DONE]\n\n", []byte{3}},
		{": keep-alive\r\n\r\ndata: {}\r\n", []byte{1, 7, 2}},
		{"data: no newline at the end", []byte{5}},
		{"event: error\ndata: {\"error\":\"x\"}\n", []byte{64}},
		{"a\n\n\n\r\n\rb\r\r\n", []byte{1}},
		{"data: " + string(bytes.Repeat([]byte("x"), 100)) + "\nafter\n", []byte{9, 31}},
		{"", []byte{1}},
		{"\xef\xbb\xbfdata: {}\r\rdata: [DONE]\r", []byte{1, 2}},
		{"a\rb\r\nc\r", []byte{2}},
	} {
		f.Add([]byte(s.data), s.sizes)
	}
	const maxLine = 64
	f.Fuzz(func(t *testing.T, data, sizeBytes []byte) {
		if len(data) > 1<<16 {
			return
		}
		sizes := []int{1}
		if len(sizeBytes) > 0 {
			sizes = make([]int, len(sizeBytes))
			for i, b := range sizeBytes {
				sizes[i] = 1 + int(b)%40
			}
		}
		r := &chunkedReader{data: bytes.Clone(data), sizes: sizes}
		lr := newLineReader(r, make([]byte, 0, 8), maxLine)
		want, tooLong := refLines(data, maxLine)
		for i := 0; ; i++ {
			line, at, err := lr.next()
			if err != nil {
				switch {
				case i < len(want):
					t.Fatalf("line %d: error %v, want %q", i, err, want[i].text)
				case tooLong >= 0 && !errors.Is(err, errLineTooLong):
					t.Fatalf("error %v after %d lines, want errLineTooLong", err, i)
				case tooLong < 0 && err != io.EOF:
					t.Fatalf("error %v after %d lines, want io.EOF", err, i)
				}
				if _, _, again := lr.next(); again == nil {
					t.Fatalf("a line after the error %v", err)
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("extra line %d %q; want %d lines then %v", i, line, len(want), tooLong)
			}
			if !bytes.Equal(line, want[i].text) {
				t.Fatalf("line %d = %q, want %q", i, line, want[i].text)
			}
			// Stamped by the Read that delivered the line's last byte (for
			// a last line without '\n', the Read that found the end).
			k := 0
			for k < len(r.ends) && r.ends[k] < want[i].end {
				k++
			}
			if k < len(r.exit) && at.Before(r.exit[k]) {
				t.Fatalf("line %d stamped before the Read that completed it returned", i)
			}
			if k+1 < len(r.enter) && want[i].terminated && at.After(r.enter[k+1]) {
				t.Fatalf("line %d stamped by a later Read than the one that completed it", i)
			}
		}
	})
}
