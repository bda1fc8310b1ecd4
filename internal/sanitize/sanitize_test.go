package sanitize

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

const (
	testKey  = "sk-test-0123456789"
	testPass = "s3cret!@x"
)

var testURL = "http://bob:s3cret%21%40x@127.0.0.1/v1?api-key=qk-0123%2B456&deployment=dep-xyz"

func TestCredentials(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("bob:" + testPass))
	got := Credentials(" \t"+testKey+" ", testURL)
	want := []string{testKey, testPass, basic, "s3cret%21%40x", "qk-0123%2B456", "qk-0123+456"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Credentials (-want +got):\n%s", d)
	}
}

func TestRedact(t *testing.T) {
	r := NewRedactor(Credentials("  "+testKey+"\t", testURL)...)
	basic := base64.StdEncoding.EncodeToString([]byte("bob:" + testPass))
	tests := []struct{ name, in, want string }{
		{"key", "bad key " + testKey + " given", "bad key [REDACTED] given"},
		{"bearer", "Authorization: Bearer " + testKey, "Authorization: Bearer [REDACTED]"},
		{"key clipped", "Authorization: Bearer sk-test-0123…", "Authorization: Bearer [REDACTED]…"},
		{"key clipped short", "key sk-te…", "key [REDACTED]…"},
		{"key clipped at the start", "key …6789 end", "key …[REDACTED] end"},
		{"clipped, not the key", "a long body…", "a long body…"},
		{"password decoded", "pass s3cret!@x here", "pass [REDACTED] here"},
		{"password as written", "url bob:s3cret%21%40x@host", "url bob:[REDACTED]@host"},
		{"basic auth", "Authorization: Basic " + basic, "Authorization: Basic [REDACTED]"},
		{"not a credential parameter", "deployment=dep-xyz", "deployment=dep-xyz"},
		{"query key as written", "GET /v1/chat/completions?api-key=qk-0123%2B456", "GET /v1/chat/completions?api-key=[REDACTED]"},
		{"query key decoded", "key qk-0123+456 refused", "key [REDACTED] refused"},
		{"nothing", "plain text", "plain text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	var nilR *Redactor
	if got := nilR.Redact(testKey); got != testKey {
		t.Errorf("nil Redactor changed the text: %q", got)
	}
}

// TestRedactFragments holds #16 item 8: an endpoint that echoes part of the
// key (clipped, masked, the key minus its first or last character) must not
// get any run of MinFragment or more of its characters into the output;
// a shorter secret is redacted whole, and its fragments are left alone.
func TestRedactFragments(t *testing.T) {
	const key = "sk-proj-ABCDEFGHIJKLMNOP0123456789" // 34 characters
	r := NewRedactor(key, "pw-123")                  // a secret shorter than MinFragment
	tests := []struct{ name, in, want string }{
		{"whole key", "k=" + key + ".", "k=[REDACTED]."},
		{"minus its last character", "model " + key[:len(key)-1] + " ok", "model [REDACTED] ok"},
		{"minus its first character", "fp " + key[1:], "fp [REDACTED]"},
		{"start", "x " + key[:8] + " y", "x [REDACTED] y"},
		{"middle", "x " + key[10:22] + " y", "x [REDACTED] y"},
		{"end", "x " + key[len(key)-9:], "x [REDACTED]"},
		{"masked middle", key[:12] + "****" + key[len(key)-10:], "[REDACTED]****[REDACTED]"},
		{"two fragments back to back", key[20:30] + key[2:12], "[REDACTED]"},
		{"7 characters are not a fragment", "x " + key[10:17] + " y", "x " + key[10:17] + " y"},
		{"short secret whole", "pass pw-123!", "pass [REDACTED]!"},
		{"short secret's fragment kept", "pw-12 and w-123", "pw-12 and w-123"},
		{"nothing", "model gpt-4o-mini", "model gpt-4o-mini"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	// Every run of MinFragment or more characters, anywhere in the key,
	// through Redact and through a Writer that gets it in two pieces.
	for lo := 0; lo < len(key); lo++ {
		for hi := lo + MinFragment; hi <= len(key); hi++ {
			in := "<" + key[lo:hi] + ">"
			if got := r.Redact(in); got != "<[REDACTED]>" {
				t.Fatalf("Redact(key[%d:%d]) = %q", lo, hi, got)
			}
			split := len(in) / 2
			var buf bytes.Buffer
			w := NewWriter(&buf, r, true)
			w.Write([]byte(in[:split]))
			w.Write([]byte(in[split:]))
			w.Flush()
			if buf.String() != "<[REDACTED]>" {
				t.Fatalf("Writer(key[%d:%d] split at %d) = %q", lo, hi, split, buf.String())
			}
		}
	}
}

// TestRedactBase64: an endpoint that echoes the key base64-encoded (a debug
// field holding the request's headers, "Basic user:KEY") must not get it out
// that way, wherever the key starts within the encoded text, in either
// alphabet, through Redact and through a Writer that gets it in two pieces.
// What is left of the blob is at most the characters it shares with the
// bytes before and after the key: fewer than MinFragment bytes of it.
func TestRedactBase64(t *testing.T) {
	const key = "sk-proj-AB?DEFGHIJ>LMNOP0123456789~" // '?', '>', '~' give '/' and '+'
	r := NewRedactor(key)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for before := range 6 {
			for _, after := range []string{"", "!", "\r\n"} {
				blob := enc.EncodeToString([]byte("Bearer "[:before] + key + after))
				in := `{"echo":"` + blob + `"}`
				got := r.Redact(in)
				left := strings.TrimSuffix(strings.TrimPrefix(got, `{"echo":"`), `"}`)
				pieces := strings.Split(left, Redacted)
				if len(pieces) < 2 {
					t.Fatalf("before %d, after %q: nothing redacted in %q", before, after, got)
				}
				for _, p := range pieces {
					if len(p) > 8 {
						t.Errorf("before %d, after %q: %q left of %q", before, after, p, blob)
					}
				}
				var buf bytes.Buffer
				w := NewWriter(&buf, r, true)
				w.Write([]byte(in[:len(in)/2]))
				w.Write([]byte(in[len(in)/2:]))
				w.Flush()
				if buf.String() != got {
					t.Errorf("Writer = %q, Redact = %q", buf.String(), got)
				}
			}
		}
	}
}

// TestCredentialQuery: only query values whose name says they are a
// credential are secrets (#16: ?port=18081 turned Host=localhost:18081 into
// Host=localhost:[REDACTED]).
func TestCredentialQuery(t *testing.T) {
	got := Credentials("", "https://gw.example/v1?port=18081&api-version=2024-06-01&deployment=dep-1&api-key=ak-0001&X-Amz-Signature=abcd1234&sig=s1g-v4lue&access_token=tok-1234&code=fn-code-1&plain")
	want := []string{"ak-0001", "ak-0001", "abcd1234", "abcd1234", "s1g-v4lue", "s1g-v4lue", "tok-1234", "tok-1234", "fn-code-1", "fn-code-1", "plain", "plain"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Credentials (-want +got):\n%s", d)
	}
	r := NewRedactor(Credentials("", "http://localhost:18081/v1?port=18081")...)
	if got := r.Redact("Host=localhost:18081"); got != "Host=localhost:18081" {
		t.Errorf("a port in the query is redacted: %q", got)
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "gpt-4o-mini", 0, "gpt-4o-mini"},
		{"newline and workflow command", "oops\n::error title=x::pwned", 0, `oops\n:` + "\u200b" + `:error title=x:` + ":pwned"},
		{"command at start", "  ::warning::x", 0, "  :\u200b:warning::x"},
		{"ipv6 untouched", "dial tcp [::1]:80", 0, "dial tcp [::1]:80"},
		{"ansi escape", "model\x1b[31mred\x1b[0m", 0, `model\x1b[31mred\x1b[0m`},
		{"C1 and DEL", "a\u009bb\x7fc", 0, `a\x9bb\x7fc`},
		{"bidi override", "abc\u202edef", 0, `abc\u202edef`},
		{"invalid utf8", "a\xffb", 0, "a\ufffdb"},
		{"tab cr", "a\tb\rc", 0, `a\tb\rc`},
		{"clip", "abcdefghij", 4, "abcd…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in, tt.max); got != tt.want {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCodeBlock(t *testing.T) {
	got := CodeBlock("line ```` fence\n::error::x\n")
	want := "`````\nline ```` fence\n:\u200b:error::x\n`````\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("CodeBlock (-want +got):\n%s", d)
	}
}

func TestWriter(t *testing.T) {
	r := NewRedactor(Credentials(testKey, "")...)
	tests := []struct {
		name       string
		writes     []string
		noCommands bool
		want       string
	}{
		{"key split over writes", []string{"a sk-test-01", "23456789 b\n"}, false, "a [REDACTED] b\n"},
		{"key at the end, flushed", []string{"x " + testKey}, false, "x [REDACTED]"},
		{"fragment split, neither half 8 long", []string{"a est-012", "3456 b\n"}, false, "a [REDACTED] b\n"},
		{"fragment then more of the key", []string{"a test-0123", "456789 b\n"}, false, "a [REDACTED] b\n"},
		{"command neutralised", []string{"ok\n", "  ::error::x\n"}, true, "ok\n  :\u200b:error::x\n"},
		{"command split between colons", []string{"abc\n   :", ":error::x\n"}, true, "abc\n   :\u200b:error::x\n"},
		{"command kept when allowed", []string{"::error::x\n"}, false, "::error::x\n"},
		{"mid-line colons kept", []string{"a ::b\n"}, true, "a ::b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, r, tt.noCommands)
			for _, s := range tt.writes {
				if _, err := w.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, buf.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// FuzzSanitize holds the sanitiser's promise over arbitrary endpoint text:
// with the credentials latgate sent inserted anywhere in it, in every form,
// no credential and no line that is a workflow command comes out of Field,
// Markdown, CodeBlock or a Writer (written in two pieces split anywhere);
// Field and Markdown are one line of valid UTF-8 with no control character,
// and CodeBlock's content cannot close its fence.
func FuzzSanitize(f *testing.F) {
	f.Add([]byte("plain"), uint8(0), uint16(0), uint16(0))
	f.Add([]byte("x\n::error title=t::pwned\n```\n# h"), uint8(1), uint16(3), uint16(7))
	f.Add([]byte("\x1b[31m\u202e::x"), uint8(2), uint16(1), uint16(2))
	f.Add([]byte("a…b"), uint8(3), uint16(1), uint16(1))
	key := " sk-FUZZ-0123456789abcdef\t"
	base := "http://user:pa%3Ass-777@127.0.0.1/v1?api-key=qk-FUZZ%2Bkey"
	r := NewRedactor(Credentials(key, base)...)
	basic := base64.StdEncoding.EncodeToString([]byte("user:pa:ss-777"))
	// Every form latgate sends, and fragments an endpoint may echo.
	creds := []string{key, "Bearer " + strings.TrimSpace(key), "Basic " + basic, "pa%3Ass-777", "api-key=qk-FUZZ%2Bkey",
		"qk-FUZZ+key", "FUZZ-0123456789abcde", "89abcdef", "sk-FUZZ-"}
	secrets := []string{"sk-FUZZ-0123456789abcdef", "pa:ss-777", "qk-FUZZ+key", "qk-FUZZ%2Bkey", basic}
	f.Fuzz(func(t *testing.T, body []byte, form uint8, at, split uint16) {
		s := string(body)
		i := int(at) % (len(s) + 1)
		text := s[:i] + creds[int(form)%len(creds)] + s[i:]
		check := func(name, out string, oneLine bool) {
			for _, sec := range secrets {
				if strings.Contains(out, sec) {
					t.Fatalf("%s leaks %q: %q", name, sec, out)
				}
				for i := 0; i+MinFragment <= len(sec); i++ {
					if strings.Contains(out, sec[i:i+MinFragment]) {
						t.Fatalf("%s leaks the fragment %q of %q: %q", name, sec[i:i+MinFragment], sec, out)
					}
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimLeft(line, " \t\r\v\f"), "::") {
					t.Fatalf("%s has a workflow command line %q", name, line)
				}
			}
			if oneLine {
				if !utf8.ValidString(out) {
					t.Fatalf("%s is not valid UTF-8: %q", name, out)
				}
				for _, c := range out {
					if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || isBidi(c) {
						t.Fatalf("%s holds control character %U: %q", name, c, out)
					}
				}
			}
		}
		field := Field(r, text, MaxMessage)
		check("Field", field, true)
		md := Markdown(field)
		check("Markdown", md, true)
		if strings.Contains(strings.ReplaceAll(md, "\\`", ""), "`") {
			t.Fatalf("Markdown has an unescaped backtick: %q", md)
		}
		block := CodeBlock(r.Redact(text))
		check("CodeBlock", block, false)
		lines := strings.Split(block, "\n")
		fence := lines[0]
		for _, l := range lines[1 : len(lines)-2] {
			if strings.HasPrefix(strings.TrimLeft(l, " "), fence) {
				t.Fatalf("CodeBlock content line %q closes the fence %q", l, fence)
			}
		}
		var buf bytes.Buffer
		w := NewWriter(&buf, r, true)
		j := int(split) % (len(text) + 1)
		w.Write([]byte(text[:j]))
		w.Write([]byte(text[j:]))
		w.Flush()
		check("Writer", buf.String(), false)
	})
}
