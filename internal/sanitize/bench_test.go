package sanitize

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRedact shows what redaction costs on every output write: text
// the size of a line, a report and a big results file, through a Redactor
// with no secret, one key, and a key with a base URL's credentials (the
// fragment rule: every window of MinFragment bytes is checked), beside the
// whole-secret replacement latgate used before (strings.ReplaceAll per
// secret), which finds no fragment. Compare the ratios within one run:
//
//	go test ./internal/sanitize -run XXX -bench Redact -benchmem
func BenchmarkRedact(b *testing.B) {
	key := "sk-proj-ABCDEFGHIJKLMNOP0123456789"
	sets := map[string][]string{
		"none":    nil,
		"key":     Credentials(key, ""),
		"key+url": Credentials(key, "https://user:pa55-w0rd-x@gw.example/v1?api-key=ak-0123456789&sig=s1gnature-value"),
	}
	line := "  greeting   ttft p50   12.3 ms → 12.9 ms   +4.9% [-2.1%, +11.8%]   ok (rules out > +12%)\n"
	for _, size := range []int{200, 4 << 10, 1 << 20} {
		text := strings.Repeat(line, size/len(line)+1)[:size]
		for _, name := range []string{"none", "key", "key+url"} {
			secrets := sets[name]
			r := NewRedactor(secrets...)
			b.Run(fmt.Sprintf("fragments/%s/%dB", name, size), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					_ = r.Redact(text)
				}
			})
			b.Run(fmt.Sprintf("whole-only/%s/%dB", name, size), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					s := text
					for _, sec := range secrets {
						s = strings.ReplaceAll(s, sec, Redacted)
					}
					_ = s
				}
			})
		}
	}
}

// BenchmarkWriter is the stdout path: a report written line by line.
func BenchmarkWriter(b *testing.B) {
	r := NewRedactor(Credentials("sk-proj-ABCDEFGHIJKLMNOP0123456789", "https://gw.example/v1?api-key=ak-0123456789")...)
	line := []byte("  greeting   ttft p50   12.3 ms → 12.9 ms   +4.9% [-2.1%, +11.8%]   ok (rules out > +12%)\n")
	w := NewWriter(discard{}, r, true)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		w.Write(line)
	}
	w.Flush()
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
