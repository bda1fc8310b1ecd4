package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/inputfile"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
	"go.yaml.in/yaml/v3"
)

// Options are the inputs of Load and Parse besides the file itself.
type Options struct {
	// Getenv looks up environment variables (OPENAI_BASE_URL); nil means os.Getenv.
	Getenv func(string) string
	// CheckSimSpec validates the SPEC of a "sim:SPEC" base_url (the CLI
	// passes sim.ParseSpec), so that a bad spec is reported with the file
	// and line like every other config error. Nil accepts any non-empty
	// spec and leaves the check to whoever starts the simulator; config
	// does not depend on the simulator.
	CheckSimSpec func(spec string) error
}

// Error is one problem found in a config file. Load and Parse return every
// Error they find (up to MaxErrors), joined with errors.Join in line order;
// errors.As finds the first.
type Error struct {
	File  string // the config file as given to Load or Parse
	Line  int    // 1-based; 0 when unknown
	Field string // field path such as "targets[0].max_tokens"; may be empty
	Msg   string // what is wrong and how to fix it
}

// Error returns "FILE:LINE: FIELD: MSG" as one line of printable text: a
// field path holds the config's own keys, which may hold anything.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return sanitize.Line(b.String(), 0)
}

// MaxErrors caps how many errors Parse reports; the rest are counted.
const MaxErrors = 20

// Defaults and limits of the schema.
const (
	DefaultBaseURL   = "https://api.openai.com/v1"
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
	DefaultBaseline  = "latgate.baseline.json"
	MaxConcurrency   = results.MaxConcurrency
	// MaxRate bounds run.rate (requests per second per target); MaxDuration
	// bounds run.duration.
	MaxRate     = results.MaxRate
	MaxDuration = 24 * time.Hour
	// MaxTimeout bounds run.timeout (and --timeout).
	MaxTimeout = time.Duration(results.MaxTimeoutMS) * time.Millisecond
	// maxExtraNodes and maxExtraDepth bound extra_body (and so alias expansion).
	maxExtraNodes = 10000
	maxExtraDepth = 64
)

// Allowed values.
var (
	checkMetrics = results.GatedMetrics()
	checkStats   = stats.Named()
	roles        = []string{"system", "user", "assistant", "tool", "developer"}
	orders       = []string{"interleave", "shuffle"}
)

// DefaultChecks returns the checks gated when gate.checks is omitted. They
// are what the default sample resolves (see the calibration matrix in
// pkg/compare, at 60 to 150 requests per prompt against a 240-request
// baseline, with a run's level ±7% from the baseline's): TTFT at P50 within
// 15%, the tightest at which a TTFT-only +30% is still caught in 90% of runs
// at two prompts, and at P90 within 50% (a P90 of a TTFT with 5% spikes or a
// 10% cold-cache mode moves by tens of percent between runs of 150; P95
// needs hundreds of requests to rule anything out), ITL at P50 within 15%
// and P95 within 25% (dozens of gaps per request make it precise). Floors
// are unset: latgate's timing resolution (compare.Resolution) applies.
func DefaultChecks() []Check {
	return []Check{
		{Metric: results.TTFT, Stat: "p50", Tolerance: Tolerance{Rel: 0.15}},
		{Metric: results.TTFT, Stat: "p90", Tolerance: Tolerance{Rel: 0.50}},
		{Metric: results.ITL, Stat: "p50", Tolerance: Tolerance{Rel: 0.15}},
		{Metric: results.ITL, Stat: "p95", Tolerance: Tolerance{Rel: 0.25}},
	}
}

// DefaultGate returns the gate used when the config has no gate section.
func DefaultGate() Gate {
	g := defaults(gateFields)
	g.Checks = DefaultChecks()
	g.DayToDay = DayToDayAuto
	return g
}

// Load reads, decodes, defaults and validates the config file at path.
func Load(path string, opts Options) (*Config, error) {
	data, err := inputfile.Read(path, inputfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	return Parse(data, path, opts)
}

// Parse decodes, defaults and validates a config held in memory. path names
// the file in errors, and relative paths (messages_file, baseline) are
// resolved against filepath.Dir(path).
func Parse(data []byte, path string, opts Options) (*Config, error) {
	p := &parser{path: path, dir: filepath.Dir(path), getenv: opts.Getenv, checkSim: opts.CheckSimSpec}
	if p.getenv == nil {
		p.getenv = os.Getenv
	}
	cfg := p.parse(data)
	if err := p.err(); err != nil {
		return nil, err
	}
	cfg.Hash = cfg.hash()
	return cfg, nil
}

// parser collects the errors of one Parse.
type parser struct {
	path   string
	dir    string
	getenv func(string) string
	// checkSim validates a simulator spec; nil accepts any.
	checkSim func(string) error
	errs     []*Error
	nodes    int // extra_body nodes visited, against maxExtraNodes
	merges   int // merge (<<) sources visited, against maxExtraNodes
	// merging holds the mappings being merged, to refuse a cycle of merges.
	merging map[*yaml.Node]bool
}

func (p *parser) fail(n *yaml.Node, field, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &Error{File: p.path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Line < p.errs[j].Line })
	var errs []error
	for i, e := range p.errs {
		if i == MaxErrors {
			errs = append(errs, &Error{File: p.path, Msg: fmt.Sprintf("%d more errors not shown", len(p.errs)-i)})
			break
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

var yamlLine = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// syntax records a YAML syntax error at the line the user must edit, which
// is not the line yaml names. yaml keeps two marks, the problem's and its
// context's (the collection or key being parsed), but its message names
// only one: the context's when there is one (0-based for a parser error,
// so an indentation slip at line 20 in the list that starts at line 18 is
// "line 17"; 1-based for a scanner error), else the problem's. So the line
// is found again by parsing the file cut short (problemLine). A tab in
// that line's indentation gets the hint to indent with spaces, whatever
// yaml's wording: "found a tab character" before a key, but "found
// character that cannot start any token" before a "- ".
func (p *parser) syntax(err error, data []byte) {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	ends := lineEnds(data)
	line = problemLine(data, ends, max(line, 1), err.Error())
	start := 0
	if line > 1 {
		start = ends[line-2]
	}
	if l := string(data[start:ends[line-1]]); strings.Contains(l[:len(l)-len(strings.TrimLeft(l, " \t"))], "\t") {
		msg += "; indent with spaces"
	}
	p.errs = append(p.errs, &Error{File: p.path, Line: line, Msg: "YAML syntax error: " + msg})
}

// lineEnds returns the offset just past each line of data (past its
// newline, if it has one); a final newline starts no line.
func lineEnds(data []byte) []int {
	var ends []int
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] < len(data) {
		ends = append(ends, len(data))
	}
	return ends
}

// problemLine returns the first line k, from lo on, such that data cut
// short after line k fails with the same error (text want: the same context
// line and problem) as the whole of data. Cut before the problem, the file
// parses or fails otherwise, at its end; cut after it, it fails the same
// way. So for a misplaced token this is the token's line, and for a
// collection or quote left open the line that opens it, the one lacking the
// closing mark (the error the whole file gets at a later line is already
// the error of the file ending there). lo is yaml's line, which is at most
// that one.
//
// Each step parses, a large part of a second for a 4 MiB file, so the
// search starts from both ends and doubles its steps: a failure near either
// costs a few parses, not log2(lines) of them. The lower end is yaml's
// line, which for a scanner error with a context (an open quote, a key
// without its colon) is the answer already. The upper end is found by
// giving yaml the file a line at a time (lineReader): yaml reads only as
// far as its next token needs, so it has read up to a line or two past the
// failure, and the file cut after the last line read fails the same way
// (checked: that rests on how yaml reads).
func problemLine(data []byte, ends []int, lo int, want string) int {
	same := func(k int) bool {
		err := decodeAll(bytes.NewReader(data[:ends[k-1]]))
		return err != nil && err.Error() == want
	}
	hi := len(ends) // the whole file fails so
	in := &lineReader{data: data}
	if err := decodeAll(in); err != nil && err.Error() == want && in.off > 0 {
		if k, _ := slices.BinarySearch(ends, in.off); k+1 < hi && k+1 >= lo && same(k+1) {
			hi = k + 1
		}
	}
	lo = min(lo, hi)
	// The answer is in [lo, hi], and the file cut after hi fails so.
	for step := 1; lo < hi; step *= 2 {
		k := min(lo+step-1, hi-1)
		if same(k) {
			hi = k
			break
		}
		if lo = k + 1; lo == hi {
			break
		}
		k = max(hi-step, lo)
		if !same(k) {
			lo = k + 1
			break
		}
		hi = k
	}
	return lo + sort.Search(hi-lo, func(i int) bool { return same(lo + i) })
}

// lineReader gives yaml its input one line at a time, to tell how far yaml
// read (see problemLine).
type lineReader struct {
	data []byte
	off  int // bytes read
}

func (r *lineReader) Read(b []byte) (int, error) {
	if r.off == len(r.data) {
		return 0, io.EOF
	}
	end := len(r.data)
	if i := bytes.IndexByte(r.data[r.off:], '\n'); i >= 0 {
		end = r.off + i + 1
	}
	n := copy(b, r.data[r.off:end])
	r.off += n
	return n, nil
}

// decodeAll decodes every document in r, as parse does, and returns the
// first error other than the end of the input.
func decodeAll(r io.Reader) error {
	dec := yaml.NewDecoder(r)
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// topKeys are the keys of latgate.yaml's top level, each a section read
// by its own function (or a path, read here).
var topKeys = []string{"baseline", "history", "targets", "prompts", "run", "gate", "ab", "knee"}

func (p *parser) parse(data []byte) *Config {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.fail(nil, "", "the file is empty; run `latgate init` to write an example config")
		} else {
			p.syntax(err, data)
		}
		return nil
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		p.fail(&next, "", "a second YAML document (after ---); keep one document per file")
	} else if !errors.Is(err, io.EOF) {
		p.syntax(err, data)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	m, ok := p.mapping(root, "", topKeys)
	if !ok {
		return nil
	}
	cfg := &Config{Path: p.path, Dir: p.dir, Baseline: filepath.Join(p.dir, DefaultBaseline)}
	if n := get(m, "baseline"); n != nil {
		if s, ok := p.str(n, "baseline", DefaultBaseline); ok {
			if s == "" {
				p.fail(n, "baseline", "empty path; remove the key to use %s beside the config", DefaultBaseline)
			}
			cfg.Baseline = p.resolve(s)
		}
	}
	if n := get(m, "history"); n != nil {
		if s, ok := p.str(n, "history", "latgate.history.jsonl"); ok {
			if s == "" {
				p.fail(n, "history", "empty path; remove the key to keep no history, or e.g. history: latgate.history.jsonl")
			} else {
				cfg.History = p.resolve(s)
			}
		}
	}
	cfg.Targets = p.targets(root, get(m, "targets"))
	cfg.Prompts = p.prompts(root, get(m, "prompts"))
	p.apiPrompts(cfg.Targets, cfg.Prompts)
	cfg.Run = p.run(get(m, "run"), len(cfg.Prompts))
	if err := RunTooLarge(cfg.Run.Requests, cfg.Run.Warmup, len(cfg.Prompts)); err != "" {
		p.fail(get(m, "run"), "run", "%s", err)
	} else if err := RunTooLarge(max(cfg.Run.Cap(), cfg.Run.BlessN()), cfg.Run.Warmup, len(cfg.Prompts)); err != "" {
		// check's rounds and bless measure up to these: the same bound.
		p.fail(get(m, "run"), "run", "%s (run.max_requests %d and run.bless_requests %d count too; lower them)", err, cfg.Run.Cap(), cfg.Run.BlessN())
	}
	cfg.Gate = p.gate(get(m, "gate"), cfg.Prompts)
	cfg.AB = p.ab(get(m, "ab"))
	cfg.Knee = p.knee(get(m, "knee"))
	return cfg
}

// RunTooLarge says why (requests + warmup) per prompt × prompts is more than
// one target may send (results.MaxTargetRequests), or returns "".
func RunTooLarge(requests, warmup, prompts int) string {
	if n := requests + warmup; n > 0 && prompts > 0 && n > results.MaxTargetRequests/prompts {
		return fmt.Sprintf("(%d requests + %d warmup) × %d prompts is over the %d requests one target may send; lower run.requests or run.warmup", requests, warmup, prompts, results.MaxTargetRequests)
	}
	return ""
}

// resolve makes a config-relative path usable from the working directory.
func (p *parser) resolve(s string) string {
	if filepath.IsAbs(s) {
		return s
	}
	return filepath.Join(p.dir, s)
}
