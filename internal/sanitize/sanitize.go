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
//     of its query string), also when a clip cut the secret short, and every
//     secret's runs in any base64 text (an endpoint echoing it encoded).
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
	"unicode"
	"unicode/utf8"
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// MinSecret is the shortest secret redacted: replacing every "ab" in a
// message would garble it and hide nothing.
const MinSecret = 4

// MinFragment is the shortest run of a secret's characters that is redacted
// wherever it appears: an endpoint that clips or masks a key in its own
// messages ("sk-abc…", the key minus its first character) echoes fragments
// of it, and any 8 characters of a key narrow it down. A secret shorter than
// MinFragment (but at least MinSecret long) is redacted whole only.
const MinFragment = 8

// Default clip lengths, in bytes of the sanitised text.
const (
	// MaxField bounds a short value: a model name, a fingerprint, a finish reason.
	MaxField = 200
	// MaxMessage bounds a failure message or an error body excerpt.
	MaxMessage = 400
)

// ellipsis marks clipped text.
const ellipsis = "…"

// Credentials returns the secrets latgate sends with apiKey and baseURL, so
// that a Redactor can remove them, and any fragment of them, from whatever an
// endpoint echoes back: the key (trimmed as net/http trims a header value;
// "Bearer KEY" holds it), a user:pass@ password decoded and as written, the
// Basic-auth base64 of user:pass, and the value of each query parameter of
// baseURL whose name says it holds a credential (?api-key=…, ?token=…,
// ?sig=…; see CredentialParam), decoded and as written. Other query values
// (?api-version=2024-06-01, ?port=18081) are not secrets and stay readable.
// Only an http(s) baseURL is sent, so only its parts are credentials. Forms
// shorter than MinSecret are left out.
func Credentials(apiKey, baseURL string) []string {
	var out []string
	if k := trimSpace(apiKey); k != "" {
		out = append(out, k)
	}
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return keep(out) // nothing of it is sent (sim:PROFILE?spec is not a URL)
	}
	if u.User != nil {
		if pass, ok := u.User.Password(); ok {
			userinfo := u.User.Username() + ":" + pass
			out = append(out, pass, base64.StdEncoding.EncodeToString([]byte(userinfo)))
			if raw := u.User.String(); raw != userinfo {
				_, rawPass, _ := strings.Cut(raw, ":")
				out = append(out, rawPass)
			}
		}
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		name, v, hasValue := strings.Cut(kv, "=")
		if !hasValue {
			name, v = "", name // a bare ?VALUE: nothing says it is not a key
		}
		if dn, err := url.QueryUnescape(name); err == nil {
			name = dn
		}
		if v == "" || (hasValue && !CredentialParam(name)) {
			continue
		}
		out = append(out, v)
		if d, err := url.QueryUnescape(v); err == nil {
			out = append(out, d)
		}
	}
	return keep(out)
}

// CredentialParam reports whether a query parameter's name says that its
// value is a credential: it contains key, token, secret, sig (signature),
// pass or pwd (password), auth, cred, session or code (Azure Functions'
// ?code=), ignoring case and the separators - _ and .
func CredentialParam(name string) bool {
	n := strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(name))
	for _, w := range []string{"key", "token", "secret", "sig", "pass", "pwd", "auth", "cred", "session", "code"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// trimSpace trims what net/http trims of a header value (space and tab), and
// the other ASCII white space too.
func trimSpace(s string) string { return strings.TrimSpace(s) }

func keep(secrets []string) []string {
	return slices.DeleteFunc(secrets, func(s string) bool { return len(s) < MinSecret })
}

// Redactor removes known secrets, and every run of at least MinFragment
// characters of one, from text. The zero value and a nil *Redactor redact
// nothing. It is safe for concurrent use, and secrets may be added while it
// is in use (latgate learns a target's key only when it resolves the
// target).
//
// Every MinFragment-byte window of every secret is kept as a uint64, and a
// window of the text that is one of them is redacted, so any longer run of a
// secret, a chain of such windows, is redacted whole. Finding them costs
// little: a byte that no secret holds skips the windows that hold it, and
// a window is looked up in the map only when its bit is set in a 64 Kibit
// filter.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // longest first
	short   []string // secrets shorter than MinFragment: redacted whole
	grams   map[uint64]struct{}
	filter  *[filterWords]uint64 // bit hash(gram) set for every gram
	inGram  [256]bool            // the bytes of the grams
}

const filterWords = 1 << 10 // 64 Ki bits

func gramHash(g uint64) uint { return uint((g * 0x9e3779b97f4a7c15) >> 48) }

// gram returns s[i:i+MinFragment] as a uint64.
func gram(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
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
	for _, s := range secrets {
		secrets = append(secrets, encoded(s)...)
	}
	secrets = keep(secrets)
	if len(secrets) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if slices.Contains(r.secrets, s) {
			continue
		}
		r.secrets = append(r.secrets, s)
		if len(s) < MinFragment {
			r.short = append(r.short, s)
			continue
		}
		if r.grams == nil {
			r.grams, r.filter = make(map[uint64]struct{}), new([filterWords]uint64)
		}
		for i := 0; i+MinFragment <= len(s); i++ {
			g := gram(s, i)
			r.grams[g] = struct{}{}
			h := gramHash(g)
			r.filter[h/64] |= 1 << (h % 64)
		}
		for i := 0; i < len(s); i++ {
			r.inGram[s[i]] = true
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	slices.SortFunc(r.short, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
}

// encoded returns the runs of base64 (standard and URL alphabets) that
// every encoding of a text holding s has, wherever s starts in it: an
// endpoint that echoes a header or a token base64-encoded (a debug field, a
// JWT-like blob, "Basic user:KEY") must not get the key out that way. For
// each of the three places s can start within a 3-byte group, s is encoded
// with that many bytes before it, and the characters that depend on those
// bytes (the first 4) or on the bytes after s (a partial last group) are
// dropped.
func encoded(s string) []string {
	var out []string
	for k := range 3 {
		in := make([]byte, k, k+len(s))
		in = append(in, s...)
		in = in[:len(in)/3*3]
		e := base64.StdEncoding.EncodeToString(in)
		if k > 0 {
			e = e[min(4, len(e)):]
		}
		if len(e) < MinFragment {
			continue
		}
		out = append(out, e)
		if u := strings.NewReplacer("+", "-", "/", "_").Replace(e); u != e {
			out = append(out, u)
		}
	}
	return out
}

// span is a byte range [lo, hi) of text to redact.
type span struct{ lo, hi int }

// spans returns the sorted, merged ranges of s to redact: every window of
// MinFragment bytes that is a window of a secret, every short secret, and a
// prefix of a secret (at least MinSecret long) that ends right before "…"
// or a suffix that starts right after it (where a clip cut the secret).
// The caller holds r.mu.
func (r *Redactor) spans(s string) []span {
	var out []span
	add := func(lo, hi int) {
		if n := len(out); n > 0 && lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, hi)
			return
		}
		out = append(out, span{lo, hi})
	}
	if r.filter != nil {
		for i := 0; i+MinFragment <= len(s); i++ {
			// A byte no secret holds rules out every window that holds it.
			if last := i + MinFragment - 1; !r.inGram[s[last]] {
				i = last
				continue
			}
			g := gram(s, i)
			if h := gramHash(g); r.filter[h/64]&(1<<(h%64)) == 0 {
				continue
			}
			if _, ok := r.grams[g]; ok {
				add(i, i+MinFragment)
			}
		}
	}
	sorted := len(out) == 0
	extra := func(lo, hi int) {
		out = append(out, span{lo, hi})
		sorted = false
	}
	for _, sec := range r.short {
		for i := 0; ; {
			j := strings.Index(s[i:], sec)
			if j < 0 {
				break
			}
			extra(i+j, i+j+len(sec))
			i += j + len(sec)
		}
	}
	if strings.Contains(s, ellipsis) {
		for _, sec := range r.secrets {
			r.clipped(s, sec, extra)
		}
	}
	if sorted {
		return out
	}
	slices.SortFunc(out, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	merged := out[:0]
	for _, sp := range out {
		if n := len(merged); n > 0 && sp.lo <= merged[n-1].hi {
			merged[n-1].hi = max(merged[n-1].hi, sp.hi)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// clipped adds the spans of a prefix of secret that ends right before a
// "…" in s, and of a suffix that starts right after one.
func (r *Redactor) clipped(s, secret string, add func(lo, hi int)) {
	for i := 0; ; {
		j := strings.Index(s[i:], ellipsis)
		if j < 0 {
			return
		}
		at := i + j
		head, tail := s[:at], s[at+len(ellipsis):]
		for n := min(len(secret)-1, len(head)); n >= MinSecret; n-- {
			if strings.HasSuffix(head, secret[:n]) {
				add(at-n, at)
				break
			}
		}
		for n := min(len(secret)-1, len(tail)); n >= MinSecret; n-- {
			if strings.HasPrefix(tail, secret[len(secret)-n:]) {
				add(at+len(ellipsis), at+len(ellipsis)+n)
				break
			}
		}
		i = at + len(ellipsis)
	}
}

// apply returns s with each span replaced by Redacted.
func apply(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.lo])
		b.WriteString(Redacted)
		at = sp.hi
	}
	b.WriteString(s[at:])
	return b.String()
}

// Redact replaces every secret, every run of at least MinFragment
// characters of a secret, and a part of a secret that a clip ("…") cut
// short, by [REDACTED]. Adjacent or overlapping matches become one.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.secrets) == 0 {
		return s
	}
	return apply(s, r.spans(s))
}

// hold returns how much of the end of s a Writer must hold back, and the
// spans of the rest: the longest end of s that is a substring of a secret
// (the next write may complete a secret or a fragment), extended back to the
// start of a span it touches.
func (r *Redactor) hold(s string) (cut int, spans []span) {
	if r == nil {
		return len(s), nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.secrets) == 0 {
		return len(s), nil
	}
	n := 0
	for n < len(s) && r.inSecret(s[len(s)-n-1:]) {
		n++
	}
	cut = len(s) - n
	spans = r.spans(s)
	for i := len(spans) - 1; i >= 0; i-- {
		if spans[i].hi >= cut { // crosses the cut, or may go on past it
			cut = min(cut, spans[i].lo)
			spans = spans[:i]
			continue
		}
		break
	}
	return cut, spans
}

// inSecret reports whether s is a substring of a secret. The caller holds r.mu.
func (r *Redactor) inSecret(s string) bool {
	for _, sec := range r.secrets {
		if len(sec) < len(s) {
			return false // longest first
		}
		if strings.Contains(sec, s) {
			return true
		}
	}
	return false
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
		case Unprintable(r):
			b.WriteString(strconv.QuoteRuneToASCII(r)[1 : len(strconv.QuoteRuneToASCII(r))-1])
		case r == ':' && wordStart && strings.HasPrefix(s[i:], ":"):
			b.WriteString(":\u200b")
		default:
			b.WriteRune(r)
		}
		wordStart = unicode.IsSpace(r) // what the runner trims before a command
	}
	return b.String()
}

func hex2(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>4&0xf], digits[r&0xf]})
}

// Unprintable reports the characters that Line shows as escapes: C0
// controls (line breaks and tabs too), DEL, C1 controls, the bidirectional
// formatting characters, the line and paragraph separators and the
// byte-order mark. Text that holds none of them (and is valid UTF-8) is
// one line of printable text, as every text field of a config must be.
func Unprintable(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidi(r) || r == '\u2028' || r == '\u2029' || r == '\ufeff'
}

// FirstUnprintable returns the byte offset of the first character of s that
// is Unprintable or invalid UTF-8, and how Line shows it (\n, \x1b, \u202e,
// or U+FFFD); -1 and "" when there is none.
func FirstUnprintable(s string) (at int, shown string) {
	for i, r := range s {
		if r == utf8.RuneError || Unprintable(r) {
			if _, size := utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size != 1 {
				continue // a real U+FFFD
			}
			return i, Line(string(r), 0)
		}
	}
	return -1, ""
}

// isBidi reports the Unicode bidirectional formatting characters, which can
// make text display differently from its bytes.
func isBidi(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// Markdown returns s as inline Markdown that renders as its own text and
// does nothing else: the one escaper of every Markdown output (reports, job
// summaries, pull-request comments, trend's issue bodies). It is one Line
// (no control characters, no "::" command); every character that could
// start emphasis, a code span, a link or image, a heading, a table cell, an
// HTML tag or entity, an autolink or GitHub's math ($…$) is
// backslash-escaped, and so is a list marker at its start ("- ", "1. ", "---").
//
// Backslashes do not stop what GitHub does after rendering: it turns
// @user, @org/team, #123 and GH-123 in the text into mentions (which notify
// people) and references, and bare URLs, www. names and e-mail addresses
// into links. So Markdown also puts a zero-width space (U+200B) after an @
// that could start a mention or an e-mail domain (not the @ of
// "target@region"), after every #, between GH and -, between a scheme's : and its //, and between
// www and its dot: the text reads and prints the same, and none of it
// mentions, references or links anything (FuzzMarkdown holds this through
// a GitHub-flavoured renderer).
func Markdown(s string) string {
	// Leading spaces render as nothing, and four of them as a code block.
	line := strings.TrimLeft(Line(s, 0), " ")
	var b strings.Builder
	b.Grow(len(line) + len(line)/4)
	list := listMarker(line)
	for i, r := range line {
		if strings.ContainsRune("\\`*_[]<>|#~&$", r) || i == list {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if inertAfter(line, i, r) {
			b.WriteString(zeroWidthSpace)
		}
	}
	return b.String()
}

// zeroWidthSpace is U+200B, which breaks a mention, reference or autolink
// without changing how the text reads.
const zeroWidthSpace = "\u200b"

// asciiWord reports the characters GitHub counts as part of a word before
// an @ (an @ after one is no mention).
func asciiWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// emailDomain reports whether s starts like the domain of an e-mail address
// the autolink extension links: name characters with a dot between two of
// them.
func emailDomain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.':
			if i > 0 && i+1 < len(s) && (asciiWord(s[i+1]) || s[i+1] == '-') {
				return true
			}
		case !asciiWord(c) && c != '-':
			return false
		}
	}
	return false
}

// listMarker returns the byte offset of the character that would make line,
// at the start of a line, a list item, a thematic break or a heading
// underline (the - or + of "- x", "+ x"; the first of "---" or "==="; the .
// or ) of "1. x"), or -1.
func listMarker(line string) int {
	if line == "" {
		return -1
	}
	blankAfter := func(i int) bool { return i >= len(line) || line[i] == ' ' }
	only := func(c byte) bool { return strings.Trim(line, string(c)+" ") == "" }
	switch c := line[0]; {
	case (c == '-' || c == '+') && blankAfter(1), c == '-' && only('-'), c == '=' && only('='):
		return 0
	}
	n := 0
	for n < len(line) && n < 10 && line[n] >= '0' && line[n] <= '9' {
		n++
	}
	if n > 0 && n < len(line) && (line[n] == '.' || line[n] == ')') && blankAfter(n+1) {
		return n
	}
	return -1
}

// inertAfter reports whether the character r at byte i of line could,
// with what follows, become a mention, a reference or an autolink on
// GitHub: an @ of a mention, team or e-mail address, # (an issue reference),
// the H of GH-<digit>, the : of ://, the last w of www.
func inertAfter(line string, i int, r rune) bool {
	next := line[i+1:]
	switch r {
	case '@':
		// A mention needs no word character before it; an e-mail address
		// needs a domain with a dot after it. "target@region" is neither.
		return i == 0 || !asciiWord(line[i-1]) || emailDomain(next)
	case '#':
		return true
	case ':':
		return strings.HasPrefix(next, "//")
	case 'h', 'H':
		return i >= 1 && (line[i-1] == 'g' || line[i-1] == 'G') && len(next) >= 2 && next[0] == '-' && next[1] >= '0' && next[1] <= '9'
	case 'w', 'W':
		return i >= 2 && strings.EqualFold(line[i-2:i+1], "www") && strings.HasPrefix(next, ".")
	}
	return false
}

// MarkdownWithCode is Markdown for a message of latgate's own that writes
// commands between backticks, as `latgate bless …`: those become code
// spans (GitHub would show escaped backticks literally), the rest is
// escaped as Markdown escapes it. Whatever the text holds, each piece is
// inert: a stray backtick only moves text between prose and code.
func MarkdownWithCode(s string) string {
	parts := strings.Split(Line(s, 0), "`")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1: // between a pair of backticks
			b.WriteString(CodeSpan(p))
		case i%2 == 1: // an unpaired backtick: text
			b.WriteString(Markdown("`" + p))
		case p != "":
			if i > 0 && p[0] == ' ' {
				b.WriteByte(' ') // Markdown drops leading spaces
			}
			b.WriteString(Markdown(p))
		}
	}
	return b.String()
}

// CodeSpan returns s (as one Line) as an inline Markdown code span: it
// renders as its own text in monospace, where nothing is Markdown and
// GitHub mentions, references and links nothing. The backtick fence is
// longer than any run of backticks in s, and a space pads text that starts
// or ends with a backtick. For a paragraph, not a table cell (where a |
// would end the cell).
func CodeSpan(s string) string {
	line := Line(s, 0)
	longest := longestBackticks(line)
	fence := strings.Repeat("`", longest+1)
	if line == "" || strings.HasPrefix(line, "`") || strings.HasSuffix(line, "`") {
		line = " " + line + " "
	}
	return fence + line + fence
}

// longestBackticks is the longest run of backticks in s: a code fence
// must be longer to hold s.
func longestBackticks(s string) int {
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
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
	longest := longestBackticks(body)
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + body + "\n" + fence + "\n"
}
