package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// maxReadmeLines is the README's budget: the pitch, the two commands,
// install, the five-minute path, the Action snippet, exit codes and links.
// Everything else belongs in docs/.
const maxReadmeLines = 300

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// markdownFiles are README.md and every docs/*.md, relative to root.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

func TestReadmeIsShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, over the %d-line budget: move the detail into a docs/ page and link it", n, maxReadmeLines)
	}
}

// TestDocLinks: every relative link in README.md and docs/*.md names a file
// or directory of the repository, and every #anchor a heading of the page it
// points into.
func TestDocLinks(t *testing.T) {
	root := repoRoot(t)
	files := markdownFiles(t, root)
	if !slices.Contains(files, "docs/README.md") {
		t.Errorf("docs/README.md (the index of docs/) is missing; have %v", files)
	}
	pages := map[string]page{} // by slash path relative to root
	load := func(rel string) (page, error) {
		if p, ok := pages[rel]; ok {
			return p, nil
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return page{}, err
		}
		p := parsePage(string(data))
		pages[rel] = p
		return p, nil
	}
	checked := 0
	for _, file := range files {
		p, err := load(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range p.links {
			checked++
			if problem := checkLink(root, file, l.target, load); problem != "" {
				t.Errorf("%s:%d: link %q: %s", file, l.line, l.target, problem)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no links found: the link parser is broken")
	}
}

// checkLink returns what is wrong with target, a link in file (both relative
// to root), or "".
func checkLink(root, file, target string, load func(string) (page, error)) string {
	if isExternal(target) {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	rel := file
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return "absolute paths do not resolve on GitHub and in a clone alike: use a relative path"
		}
		rel = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), filepath.FromSlash(path))))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "points outside the repository"
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			return fmt.Sprintf("no such file or directory %s", rel)
		}
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(rel, ".md") {
		return fmt.Sprintf("an anchor into %s, which is not a Markdown page", rel)
	}
	p, err := load(rel)
	if err != nil {
		return err.Error()
	}
	if !slices.Contains(p.anchors, anchor) {
		return fmt.Sprintf("%s has no heading with anchor #%s (its anchors: %s)", rel, anchor, strings.Join(p.anchors, ", "))
	}
	return ""
}

func isExternal(target string) bool {
	for _, scheme := range []string{"http://", "https://", "mailto:"} {
		if strings.HasPrefix(target, scheme) {
			return true
		}
	}
	return false
}

// page is what the link check needs of a Markdown file.
type page struct {
	anchors []string // GitHub's anchors of its headings, in order
	links   []link
}

type link struct {
	line   int
	target string
}

var (
	// inlineLink is [text](target) or ![alt](target), with an optional
	// "title"; text may hold one level of brackets ([`x`](y) and [a [b]](c)).
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	heading    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
)

// parsePage finds the headings and inline links of a CommonMark page outside
// fenced code blocks (links inside code spans are text, not links).
func parsePage(src string) page {
	var p page
	seen := map[string]int{}
	fence := ""
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpening(trimmed); f != "" {
			fence = f
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			a := anchor(m[2])
			if n := seen[a]; n > 0 {
				p.anchors = append(p.anchors, fmt.Sprintf("%s-%d", a, n))
			} else {
				p.anchors = append(p.anchors, a)
			}
			seen[a]++
		}
		text := codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			p.links = append(p.links, link{line: i + 1, target: m[1]})
		}
	}
	return p
}

// fenceOpening is the fence (``` or ~~~, three or more) that line opens, or "".
func fenceOpening(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// anchor is GitHub's anchor of a heading: the rendered text (code spans keep
// their text, links their link text), lower-cased, every character other
// than a letter, digit, space, hyphen or underscore dropped, spaces turned
// into hyphens.
func anchor(headingText string) string {
	text := inlineLink.ReplaceAllStringFunc(headingText, func(l string) string {
		return l[strings.Index(l, "[")+1 : strings.LastIndex(l, "](")]
	})
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestAnchor(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"How the gate decides", "how-the-gate-decides"},
		{"Absolute limits (`max:`)", "absolute-limits-max"},
		{"tokens_per_s: higher is better", "tokens_per_s-higher-is-better"},
		{"Secrets, and text from outside", "secrets-and-text-from-outside"},
		{"The example workflow's jobs", "the-example-workflows-jobs"},
		{"Config reference (`latgate.yaml`)", "config-reference-latgateyaml"},
		{"Nightly: history, change points, drift", "nightly-history-change-points-drift"},
		{"See [the gate](gate.md) here", "see-the-gate-here"},
		{"Größe – ümlaut", "größe--ümlaut"},
	}
	for _, tt := range tests {
		if got := anchor(tt.heading); got != tt.want {
			t.Errorf("anchor(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

func TestParsePage(t *testing.T) {
	src := "# Title\n" +
		"See [a](a.md), [`b`](b.md#x \"title\") and ![img](img.png).\n" +
		"`[not](a-link.md)` is code.\n" +
		"```sh\n" +
		"# not a heading [nor](link.md)\n" +
		"```\n" +
		"## Title\n" +
		"~~~~\n" +
		"```\n" +
		"~~~~\n" +
		"### Last [one](c.md#y)\n"
	got := parsePage(src)
	want := page{
		anchors: []string{"title", "title-1", "last-one"},
		links:   []link{{2, "a.md"}, {2, "b.md#x"}, {2, "img.png"}, {11, "c.md#y"}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(page{}, link{})); diff != "" {
		t.Errorf("parsePage (-want +got):\n%s", diff)
	}
}
