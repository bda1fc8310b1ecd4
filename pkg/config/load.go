package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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

// syntax records a YAML syntax error at yaml's own line, except for a tab
// in the indentation, which yaml reports at the line before the tab's (the
// line of the token it was scanning): that one is placed at the first line
// from there indented with a tab.
func (p *parser) syntax(err error, data []byte) {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if lines := strings.Split(string(data), "\n"); strings.Contains(msg, "found a tab character") && line > 0 && line <= len(lines) {
		for i, l := range lines[line-1:] {
			if strings.Contains(l[:len(l)-len(strings.TrimLeft(l, " \t"))], "\t") {
				line += i
				msg += "; indent with spaces"
				break
			}
		}
	}
	p.errs = append(p.errs, &Error{File: p.path, Line: line, Msg: "YAML syntax error: " + msg})
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
