package sanitize

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// gfm renders Markdown as GitHub does at parse time: CommonMark with
// tables, strikethrough, task lists and the autolink extension (bare URLs,
// www. names, e-mail addresses become links).
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Inline contexts latgate writes Markdown text into, each with the one
// element its text must render into, as plain text: any tag inside (a link,
// an image, emphasis, code, a heading, a list of the text's own) is the
// text acting as Markdown.
var markdownContexts = []struct {
	name, before, after string
	element             *regexp.Regexp
}{
	{"paragraph", "", "\n", regexp.MustCompile(`(?s)^<p>(.*)</p>\n$`)},
	{"after words", "see ", "\n", regexp.MustCompile(`(?s)^<p>see (.*)</p>\n$`)},
	{"table cell", "| h |\n|---|\n| ", " |\n", regexp.MustCompile(`(?s)^<table>\n<thead>\n<tr>\n<th>h</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>(.*)</td>\n</tr>\n</tbody>\n</table>\n$`)},
	{"list item", "- ", "\n", regexp.MustCompile(`(?s)^<ul>\n<li>(.*)</li>\n</ul>\n$`)},
}

var (
	htmlTag = regexp.MustCompile(`<[a-zA-Z/!?]`)
	// What GitHub turns into a mention (an @ after no word character), an
	// e-mail link, a reference or a link after it rendered the Markdown, in
	// any text that is not code or a link.
	githubLinks = regexp.MustCompile(`(?i)(^|[^a-z0-9_])@[a-z0-9_-]|[a-z0-9.+_-]@[a-z0-9_-]+\.[a-z0-9_-]|#[a-z0-9]|gh-[0-9]|www\.|://`)
)

// rendered renders the Markdown text md in context c and returns the text
// of the result, or why it is not plain text.
func rendered(t *testing.T, c int, md string) (text, problem string) {
	t.Helper()
	ctx := markdownContexts[c]
	var out bytes.Buffer
	if err := gfm.Convert([]byte(ctx.before+md+ctx.after), &out); err != nil {
		t.Fatal(err)
	}
	m := ctx.element.FindStringSubmatch(out.String())
	switch {
	case md == "":
		return "", "" // nothing renders as nothing
	case m == nil:
		return "", "does not render as one " + ctx.name + ": " + out.String()
	case htmlTag.MatchString(m[1]):
		return "", "renders HTML: " + out.String()
	}
	return html.UnescapeString(m[1]), ""
}

// checkMarkdown holds Markdown's promise for s in every context: the
// rendering is plain text, that text is s as one Line (white space at its
// ends aside, zero-width spaces aside), and nothing in it becomes a
// mention, a reference or a link on GitHub.
func checkMarkdown(t *testing.T, s string) {
	t.Helper()
	md := Markdown(s)
	if strings.Contains(md, "\n") {
		t.Fatalf("Markdown(%q) = %q is more than one line", s, md)
	}
	noZW := func(x string) string { return strings.ReplaceAll(x, zeroWidthSpace, "") }
	want := strings.Trim(noZW(Line(s, 0)), " ")
	for i, ctx := range markdownContexts {
		text, problem := rendered(t, i, md)
		if problem != "" {
			t.Fatalf("Markdown(%q) = %q %s", s, md, problem)
		}
		if m := githubLinks.FindString(text); m != "" {
			t.Fatalf("%s: Markdown(%q) = %q renders %q, which holds %q: GitHub links or mentions it", ctx.name, s, md, text, m)
		}
		if got := strings.Trim(noZW(text), " "); got != want {
			t.Fatalf("%s: Markdown(%q) = %q renders as %q, want %q", ctx.name, s, md, got, want)
		}
	}
}

// markdownSeeds are the hostile classes: Markdown syntax, HTML, entities,
// GitHub's math, and every kind of mention, reference and autolink.
var markdownSeeds = []string{
	"plain text",
	"x` ```\n# head ![img](http://e/x.png) <img src=x> &amp; | cell $\\color{red}{x}$",
	"@octocat @org/team https://evil.example/login www.evil.example user@evil.example",
	"#123 GH-42 gh-7 owner/repo#9 see:#1 (#2)",
	"&#64;octocat &commat;team &#x40;x &#35;12",
	"<https://x.example> <user@x.example> [x](http://y) [x]: http://z ![i](z)",
	"HTTPS://EVIL.EXAMPLE WWW.EVIL.EXAMPLE mailto:a@b.example xmpp:a@b.example ftp://f.example",
	"*em* _em_ **strong** ~~del~~ ~del~ `code` ``co`de``",
	"- item", "+ item", "1. item", "12) item", "---", "===", "# h", "> quote", "    code", "- [ ] task",
	"trailing backslash \\", "a\\|b | c", "::error::x", "::", "\u200b@x", "\u00a0 nbsp",
	"", " ", "model-1.5 (beta): 3.5 ms ± 2%",
}

// TestMarkdownRendersAsText holds Markdown's promise over the hostile
// classes; FuzzMarkdown over random text.
func TestMarkdownRendersAsText(t *testing.T) {
	for _, s := range markdownSeeds {
		checkMarkdown(t, s)
	}
}

// TestMarkdownInert: #27 item 3's model name, exactly as latgate writes it.
func TestMarkdownInert(t *testing.T) {
	const zw = zeroWidthSpace
	for in, want := range map[string]string{
		"@octocat @org/team https://evil.example/login www.evil.example user@evil.example": "@" + zw + "octocat @" + zw + "org/team https:" + zw + "//evil.example/login www" + zw + ".evil.example user@" + zw + "evil.example",
		"#12 GH-3 repo#4": `\#` + zw + "12 GH" + zw + "-3 repo\\#" + zw + "4",
		"- a":             `\- a`,
		"2. b":            `2\. b`,
		"gpt-4o-mini":     "gpt-4o-mini",
		"fallback@eu/x":   "fallback@eu/x",
		"a@b.c d_@e.f":    "a@" + zw + "b.c d\\_@" + zw + "e.f",
		"(@x) é@y":        "(@" + zw + "x) é@" + zw + "y",
		"+15% or 2 ms":    "+15% or 2 ms",
	} {
		if d := cmp.Diff(want, Markdown(in)); d != "" {
			t.Errorf("Markdown(%q) (-want +got):\n%s", in, d)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range markdownSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkMarkdown(t, s)
	})
}

// TestCodeSpan: a code span renders as the text itself, whatever backticks,
// Markdown, mentions or links it holds, and as code (which GitHub leaves
// alone).
func TestCodeSpan(t *testing.T) {
	codeSpan := regexp.MustCompile(`(?s)^<p>see <code>(.*)</code> here</p>\n$`)
	for _, s := range append(markdownSeeds, "my_config.yaml", "latgate@24231d9b34bd.yaml", "`", "a``b", "` x `", "  ") {
		if s == "" {
			continue
		}
		var out bytes.Buffer
		if err := gfm.Convert([]byte("see "+CodeSpan(s)+" here\n"), &out); err != nil {
			t.Fatal(err)
		}
		m := codeSpan.FindStringSubmatch(out.String())
		if m == nil {
			t.Errorf("CodeSpan(%q) = %q renders as %q, not one code span", s, CodeSpan(s), out.String())
			continue
		}
		// CommonMark strips one space at each end when both are spaces.
		want := Line(s, 0)
		if got := html.UnescapeString(m[1]); got != want && " "+got+" " != want {
			t.Errorf("CodeSpan(%q) = %q renders %q, want %q", s, CodeSpan(s), got, want)
		}
	}
}

// TestMarkdownWithCode (#33): latgate's own messages write commands between
// backticks; in Markdown those render as code (before, as literal escaped
// backticks), the rest as text, and hostile pieces stay inert either way.
func TestMarkdownWithCode(t *testing.T) {
	tests := []struct {
		in       string
		code     []string // the <code> elements, in order
		noneOfIt []string // must not render (as HTML)
	}{
		{"make them the baseline with `latgate bless --config a_b.yaml --from r.json`, review and commit it.",
			[]string{"latgate bless --config a_b.yaml --from r.json"}, []string{"\\`"}},
		{"two: `a` and `b*c*`", []string{"a", "b*c*"}, []string{"<em>"}},
		{"one stray ` backtick and @someone", nil, []string{"<code>", `<a `}},
		{"`<img src=x onerror=alert(1)>` then [x](https://evil.example)", []string{"&lt;img src=x onerror=alert(1)&gt;"}, []string{"<img", "<a "}},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := gfm.Convert([]byte(MarkdownWithCode(tt.in)), &out); err != nil {
			t.Fatal(err)
		}
		html := out.String()
		var code []string
		for rest := html; ; {
			_, after, ok := strings.Cut(rest, "<code>")
			if !ok {
				break
			}
			c, tail, _ := strings.Cut(after, "</code>")
			code, rest = append(code, c), tail
		}
		if diff := cmp.Diff(tt.code, code); diff != "" {
			t.Errorf("%q: code spans (-want +got):\n%s\n%s", tt.in, diff, html)
		}
		for _, bad := range tt.noneOfIt {
			if strings.Contains(html, bad) {
				t.Errorf("%q renders %q:\n%s", tt.in, bad, html)
			}
		}
	}
}
