// Package sanitize owns the one rule for text from outside latgate: anything
// an endpoint sent (error bodies, stream frames, returned model names,
// system fingerprints, finish reasons) or a file latgate did not write itself
// is hostile until it has passed through here.
//
// The rule has three parts, applied in this order:
//
//   - Redact: every form of a credential latgate sent is replaced by
//     [REDACTED] (the API key as given and trimmed, "Bearer KEY", a base URL's
//     user:pass@ decoded, as written and in Basic-auth base64, and the values
//     of its query string), also when a clip cut the secret short.
//   - Line: one line of printable text: control characters (C0, DEL, C1, and
//     the bidirectional overrides that make text read differently from what it
//     is) are shown as escapes such as \x1b or \n, invalid UTF-8 as U+FFFD, a
//     "::" that starts a word cannot start a GitHub workflow command, and the
//     text is clipped.
//   - Markdown / CodeBlock: for Markdown outputs (a PR comment, the job
//     summary), text that cannot open or close a code span, fence, link,
//     image, heading or HTML tag.
//
// Field combines Redact and Line for a value about to be stored (a results or
// baseline file, a history record) or printed. Writer applies Redact (and,
// for streams that never carry workflow commands, the "::" rule) to
// everything written through it, as the last line of defence of stdout and
// stderr.
package sanitize

import (
	"cmp"
	"encoding/base64"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// MinSecret is the shortest secret redacted: replacing every "ab" in a
// message would garble it and hide nothing.
const MinSecret = 4

// Default clip lengths, in bytes of the sanitised text.
const (
	// MaxField bounds a short value: a model name, a fingerprint, a finish reason.
	MaxField = 200
	// MaxMessage bounds a failure message or an error body excerpt.
	MaxMessage = 400
)

// ellipsis marks clipped text.
const ellipsis = "…"

// Credentials returns every form in which latgate sends apiKey and the
// credentials of baseURL, so that a Redactor can remove them from whatever
// an endpoint echoes back: the key as given and trimmed (net/http trims a
// header value), "Bearer KEY"; a user:pass@ password decoded and as written,
// the user:pass pair, its Basic-auth base64 and "Basic …" header; and each
// query-string value of baseURL (?api-key=…) decoded and as written, and the
// whole query. Only an http(s) baseURL is sent, so only its parts are
// credentials. Forms shorter than MinSecret are left out.
func Credentials(apiKey, baseURL string) []string {
	var out []string
	if apiKey != "" {
		out = append(out, apiKey, trimSpace(apiKey), "Bearer "+trimSpace(apiKey))
	}
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return keep(out) // nothing of it is sent (sim:PROFILE?spec is not a URL)
	}
	if u.User != nil {
		if pass, ok := u.User.Password(); ok {
			userinfo := u.User.Username() + ":" + pass
			b64 := base64.StdEncoding.EncodeToString([]byte(userinfo))
			out = append(out, pass, userinfo, b64, "Basic "+b64)
			if raw := u.User.String(); raw != userinfo {
				_, rawPass, _ := strings.Cut(raw, ":")
				out = append(out, rawPass, raw)
			}
		}
	}
	if u.RawQuery != "" {
		out = append(out, u.RawQuery)
		for _, kv := range strings.Split(u.RawQuery, "&") {
			_, v, _ := strings.Cut(kv, "=")
			out = append(out, v)
			if d, err := url.QueryUnescape(v); err == nil {
				out = append(out, d)
			}
		}
	}
	return keep(out)
}

// trimSpace trims what net/http trims of a header value (space and tab), and
// the other ASCII white space too.
func trimSpace(s string) string { return strings.TrimSpace(s) }

func keep(secrets []string) []string {
	return slices.DeleteFunc(secrets, func(s string) bool { return len(s) < MinSecret })
}

// Redactor removes known secrets from text. The zero value and a nil
// *Redactor redact nothing. It is safe for concurrent use, and secrets may
// be added while it is in use (latgate learns a target's key only when it
// resolves the target).
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // longest first, so that a secret containing another goes whole
}

// NewRedactor returns a Redactor for secrets (see Credentials).
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add adds secrets; those shorter than MinSecret are ignored.
func (r *Redactor) Add(secrets ...string) {
	secrets = keep(slices.Clone(secrets))
	if len(secrets) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
}

// Redact replaces every secret in s, and a prefix of a secret that ends
// right before "…" (where a clip cut it), by [REDACTED].
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, Redacted)
		if strings.Contains(s, ellipsis) {
			s = redactClipped(s, secret)
		}
	}
	return s
}

// partial returns the length of the longest end of s that is a proper
// prefix of a secret: what a Writer must hold back.
func (r *Redactor) partial(s string) int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	best := 0
	for _, secret := range r.secrets {
		for n := min(len(secret)-1, len(s)); n > best; n-- {
			if strings.HasSuffix(s, secret[:n]) {
				best = n
				break
			}
		}
	}
	return best
}

// URL returns u as files and messages may show it: without user:pass@, query
// string (which may carry keys: ?api-key=…) and fragment.
func URL(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return "(unparseable URL)"
	}
	p.User = nil
	p.RawQuery, p.ForceQuery = "", false
	p.Fragment, p.RawFragment = "", ""
	return p.String()
}

// redactClipped replaces a prefix of secret that ends where a clip cut the
// text, right before "…".
func redactClipped(msg, secret string) string {
	var b strings.Builder
	for {
		i := strings.Index(msg, ellipsis)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		head := msg[:i]
		for n := min(len(secret)-1, len(head)); n >= MinSecret; n-- {
			if strings.HasSuffix(head, secret[:n]) {
				head = head[:len(head)-n] + Redacted
				break
			}
		}
		b.WriteString(head)
		b.WriteString(ellipsis)
		msg = msg[i+len(ellipsis):]
	}
}

// Field returns s redacted, as one line (see Line), clipped to max bytes:
// the form in which outside text is stored and printed. Redaction comes
// first, so that an escape cannot split a secret out of reach, and again
// after the clip.
func Field(r *Redactor, s string, max int) string {
	return r.Redact(Line(r.Redact(s), max))
}

// Line returns s as one line of printable text of at most max bytes (plus
// "…" when clipped; max <= 0 means no clip): invalid UTF-8 becomes U+FFFD;
// CR, LF, tab and other control characters, DEL, C1 controls and Unicode
// bidirectional controls become visible escapes (\n, \t, \x1b, \u202e); and a
// "::" at the start or after white space gets a zero-width space between its
// colons, so that no line it ends up on, however wrapped, is a GitHub
// workflow command.
func Line(s string, max int) string {
	var b strings.Builder
	b.Grow(min(len(s), max+8))
	wordStart := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if max > 0 && b.Len() >= max {
			b.WriteString(ellipsis)
			return b.String()
		}
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteString(`\x`)
			b.WriteString(hex2(r))
		case isBidi(r) || r == '\u2028' || r == '\u2029' || r == '\ufeff':
			b.WriteString(strconv.QuoteRuneToASCII(r)[1 : len(strconv.QuoteRuneToASCII(r))-1])
		case r == ':' && wordStart && strings.HasPrefix(s[i:], ":"):
			b.WriteString(":\u200b")
		default:
			b.WriteRune(r)
		}
		wordStart = r == ' ' || r == '\u00a0' || r == '\u3000' || (r >= '\u2000' && r <= '\u200a') || r == '\t' || r == '\n' || r == '\r'
	}
	return b.String()
}

func hex2(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>4&0xf], digits[r&0xf]})
}

// isBidi reports the Unicode bidirectional formatting characters, which can
// make text display differently from its bytes.
func isBidi(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// Markdown returns s (already a Line, or any text) escaped for inline
// Markdown: one line, with every character that could start emphasis, a code
// span, a link or image, a heading, a table cell, an HTML tag or entity, or
// an autolink backslash-escaped, so that the text renders as itself.
func Markdown(s string) string {
	var b strings.Builder
	for _, r := range Line(s, 0) {
		if strings.ContainsRune("\\`*_[]()<>|#~&!{}+-.=:\"'", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CodeBlock returns text as a fenced Markdown code block whose fence is
// longer than any run of backticks in text, so the text cannot close it;
// each line of text is sanitised with Line (the line breaks are kept).
func CodeBlock(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = Line(strings.TrimSuffix(l, "\r"), 0)
	}
	body := strings.Join(lines, "\n")
	run, longest := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + body + "\n" + fence + "\n"
}
