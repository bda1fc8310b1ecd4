package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// oneRead returns its data, with err along with the last of it, then err.
type oneRead struct {
	data []byte
	err  error
}

func (r *oneRead) Read(p []byte) (int, error) {
	n := copy(p, r.data)
	if r.data = r.data[n:]; len(r.data) > 0 {
		return n, nil
	}
	return n, r.err
}

func TestLineReaderLastLine(t *testing.T) {
	reset := errors.New("connection reset")
	tests := []struct {
		name  string
		data  string
		err   error
		lines []string
	}{
		{"clean end keeps an unterminated last line", "data: a\ndata: {\"b\"}", io.EOF, []string{"data: a", `data: {"b"}`}},
		{"a cut drops the partial line", "data: a\ndata: {\"b\"", reset, []string{"data: a"}},
		{"CRLF", "data: a\r\n\r\n", io.EOF, []string{"data: a", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := newLineReader(&oneRead{[]byte(tt.data), tt.err}, make([]byte, 8), 1<<10)
			var got []string
			for {
				line, _, err := lr.next()
				if err != nil {
					if err != tt.err {
						t.Errorf("error %v, want %v", err, tt.err)
					}
					break
				}
				got = append(got, string(line))
			}
			if diff := cmp.Diff(tt.lines, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// wantMalformed is the rule parseFrame keeps: a payload (trimmed, not
// [DONE]) is malformed exactly when json.Valid rejects it or it is not an
// object.
func wantMalformed(data []byte) bool {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, doneMarker) {
		return false
	}
	return !json.Valid(data) || data[0] != '{'
}

func TestParseFrameValidatesLikeEncodingJSON(t *testing.T) {
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}` }
	for _, in := range []string{
		`{}`, ` {"a":1} `, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{,"a":1}`, `{"a":1 "b":2}`, `{"a":1}}`, `{"a":1}x`, `{"a":[1,]}`,
		`{"a":[,1]}`, `{"a":[1 2]}`, `{"a":01}`, `{"a":-0}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`,
		`{"a":1E-7}`, `{"a":2.5e3}`, `{"a":+1}`, `{"a":1.2.3}`, `{"a":tru}`, `{"a":true}`, `{"a":nul}`, `{"a":null}`,
		`{"a":false}`, `{"a":falsey}`, `{"a":"\u00e9"}`, `{"a":"\u00zz"}`, `{"a":"\u12"}`, `{"a":"\x"}`, `{"a":"\/"}`,
		"{\"a\":\"tab\there\"}", "{\"a\":\"nul\x00\"}", "{\"a\":1}\x00", "{\"a\":\"\xff\xfe\"}", `{"a":"unterminated}`,
		`{"a":"trailing backslash\`, `{1:2}`, `{"a":{"b":{"c":[{"d":null}]}}}`, `{"choices":[{"delta":{"content":"x"}}]`,
		deep(maxDepth), deep(maxDepth + 1), `[{"a":1}]`, `"str"`, `42`, "\f{\"a\":1}\v",
	} {
		var f frame
		parseFrame([]byte(in), &f)
		if want := wantMalformed([]byte(in)); f.malformed != want {
			t.Errorf("parseFrame(%.60q): malformed = %v, want %v", in, f.malformed, want)
		}
		if f.malformed && view(&f) != (frameView{Malformed: true}) {
			t.Errorf("parseFrame(%.60q): a malformed frame also reports %+v", in, view(&f))
		}
	}
}

func FuzzParseFrameValidation(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c\n"}],"d":-1.5e3}`, `{"choices":[{"delta":{"content":"\u00e9"}}]}`, `{"a":tru}`, `{"a":01}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fr frame
		parseFrame(data, &fr)
		if want := wantMalformed(data); fr.malformed != want {
			t.Errorf("parseFrame(%q): malformed = %v, json.Valid says %v", data, fr.malformed, want)
		}
	})
}
