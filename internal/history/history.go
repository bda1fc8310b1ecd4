package history

import (
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
)

// Schema is the value of every record's "schema" field.
const Schema = "latgate.history/v1"

// Record is one run of `check` or `measure`, compact: a run with 10 prompts
// adds a few KB.
type Record struct {
	Schema string `json:"schema"`
	// At is when the run finished, UTC, second precision.
	At time.Time `json:"at"`
	// Commit is the git commit the run measured at ($GITHUB_SHA or HEAD).
	Commit string `json:"commit,omitempty"`
	// CommitURL is the commit's page on the forge (GitHub, GitLab) when
	// the run knew it ("" otherwise): the trend page links each run to it.
	// Only an http(s) URL is kept (SafeURL).
	CommitURL string `json:"commit_url,omitempty"`
	Runner    Runner `json:"runner"`
	Version   string `json:"latgate_version"`
	// Command is "check" or "measure"; Verdict is check's overall verdict.
	Command string `json:"command"`
	Verdict string `json:"verdict,omitempty"`
	// BlessedAt is when the baseline that check compared the run with was
	// blessed (zero for measure, or a run without a baseline): the bless
	// dates of a history's charts.
	BlessedAt  time.Time `json:"blessed_at,omitzero"`
	ConfigHash string    `json:"config_hash"`
	Requests   int       `json:"requests"`
	// Rate is the run's arrival rate (run.rate, requests/s per target; 0
	// for a closed loop): a record measures the endpoint at that load, and
	// is compared only with records of the same (File.AtLoad).
	Rate    float64  `json:"rate,omitempty"`
	Targets []Target `json:"targets"`
}

// Runner identifies where a run was measured from (see results.Runner).
type Runner = results.Runner

// Target is one target's part of a run.
type Target struct {
	Name               string   `json:"name"`
	Region             string   `json:"region,omitempty"`
	Model              string   `json:"model"`
	ReturnedModels     []string `json:"returned_models,omitempty"`
	SystemFingerprints []string `json:"system_fingerprints,omitempty"`
	Requests           int      `json:"requests"`
	Errors             int      `json:"errors,omitempty"`
	Prompts            []Prompt `json:"prompts"`
	// Knee is a sweep's (Command "sweep"): the target's knee, the highest
	// arrival rate meeting its SLO's goal; nil in a check's or measure's.
	// Load is the sweep's rates measured, for the latency-versus-load chart.
	Knee *Knee      `json:"knee,omitempty"`
	Load []LoadStep `json:"load,omitempty"`
}

// LoadStep is one rate of a sweep: requests per second, the TTFT P95 there
// (ms, from the scheduled send) and the goodput (the share meeting the SLO;
// 0 without one).
type LoadStep struct {
	Rate    float64 `json:"rate"`
	TTFTP95 float64 `json:"ttft_p95_ms"`
	Goodput float64 `json:"goodput"`
}

// Knee is a target's knee as a sweep found it (results.SweepKnee), with
// the goal it was found for: requests per second.
type Knee struct {
	Rate   float64 `json:"rate"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Goal   float64 `json:"goal"`
	Below  bool    `json:"below,omitempty"`
	Above  bool    `json:"above,omitempty"`
	HiOpen bool    `json:"hi_open,omitempty"`
}

// FromSweep makes the record of a finished sweep: per target, its knee
// (none for a target without an SLO) and the requests it sent.
func FromSweep(sw *results.Sweep, m Meta) Record {
	r := fromMeta(m, sw.Version, sw.ConfigHash)
	for _, t := range sw.Targets {
		ht := Target{Name: t.Name, Region: t.Region, Model: metaText(m, t.Model), Prompts: []Prompt{}}
		for _, s := range t.Steps {
			ht.Requests += s.Requests
			ht.Errors += s.Errors
			ht.Load = append(ht.Load, LoadStep{Rate: s.Rate, TTFTP95: s.TTFTP95, Goodput: s.Goodput})
		}
		if k := t.Knee; k != nil {
			ht.Knee = &Knee{Rate: k.Rate, Lo: k.Lo, Hi: k.Hi, Goal: sw.Goal, Below: k.Below, Above: k.Above, HiOpen: k.HiOpen}
		}
		r.Targets = append(r.Targets, ht)
	}
	return r
}

// Prompt is one target × prompt's summaries, keyed by metric name.
type Prompt struct {
	ID string `json:"id"`
	// Hash is the prompt's canonical hash: an edited prompt starts a new series.
	Hash    string           `json:"hash,omitempty"`
	Metrics map[string]Stats `json:"m"`
}

// Meta is what a record holds besides the results: where and when.
type Meta struct {
	At     time.Time
	Commit string
	// CommitURL is the commit's web page ("" for none).
	CommitURL string
	Runner    Runner
	Command   string
	Verdict   string
	// BlessedAt is when the baseline the run was compared with was blessed.
	BlessedAt time.Time
	// Sanitize cleans every text that came from the endpoint or the
	// environment (models, fingerprints, runner fields, commit) before it
	// is stored: it must redact credentials. Clean is applied after it.
	Sanitize func(string) string
}

// metaText is text for a record: sanitised by m's Sanitize, then Clean.
func metaText(m Meta, s string) string {
	if m.Sanitize != nil {
		s = m.Sanitize(s)
	}
	return Clean(s)
}

// fromMeta is a record's head: where and when, by which version of which
// config; its targets are the caller's.
func fromMeta(m Meta, version, configHash string) Record {
	san := func(s string) string { return metaText(m, s) }
	return Record{
		Schema:     Schema,
		At:         m.At.UTC().Truncate(time.Second),
		Commit:     san(m.Commit),
		CommitURL:  SafeURL(san(m.CommitURL)),
		Version:    san(version),
		Command:    m.Command,
		Verdict:    m.Verdict,
		BlessedAt:  m.BlessedAt.UTC().Truncate(time.Second),
		ConfigHash: configHash,
		Runner: Runner{
			OS: san(m.Runner.OS), Arch: san(m.Runner.Arch), Name: san(m.Runner.Name),
			Labels: san(m.Runner.Labels), Region: san(m.Runner.Region), Environment: san(m.Runner.Environment),
		},
	}
}

// FromResults makes the record of a finished run: per target × prompt,
// every metric a gate can check (results.GatedMetrics) with every statistic
// a gate can check (Recorded), computed from the run's samples as the gate
// computes them. Samples and failure messages are never kept.
func FromResults(f *results.File, m Meta) Record {
	san := func(s string) string { return metaText(m, s) }
	sanAll := func(ss []string) []string {
		out := make([]string, 0, len(ss))
		for _, s := range ss {
			out = append(out, san(s))
		}
		return out
	}
	r := fromMeta(m, f.Version, f.ConfigHash)
	r.Requests, r.Rate = f.Run.Requests, f.Run.Rate
	for _, t := range f.Targets {
		ht := Target{
			Name: t.Name, Region: t.Region, Model: san(t.Model),
			ReturnedModels: sanAll(t.ReturnedModels), SystemFingerprints: sanAll(t.SystemFingerprints),
			Requests: t.Requests, Errors: t.Errors,
		}
		for _, p := range t.Prompts {
			hp := Prompt{ID: p.ID, Hash: p.Hash, Metrics: make(map[string]Stats)}
			for _, name := range results.GatedMetrics() {
				if st, ok := Summarize(p.Samples, name); ok {
					hp.Metrics[name] = st
				} else if s := p.Metrics.Get(name); len(p.Samples) == 0 && s != nil && s.N > 0 {
					hp.Metrics[name] = fromSummary(s) // a results file without samples
				}
			}
			ht.Prompts = append(ht.Prompts, hp)
		}
		r.Targets = append(r.Targets, ht)
	}
	return r
}

// round keeps microseconds (and rates to 0.001/s): finer digits are clock
// noise and bytes.
func round(ms float64) float64 { return math.Round(ms*1000) / 1000 }

// maxText bounds every stored text, in runes.
const maxText = 200

// Clean makes text from outside safe to store and to print later: control
// characters (newlines included) and every other character sanitize.Line
// escapes (bidirectional overrides and isolates, line separators, the
// byte-order mark: text that displays otherwise than its bytes) become
// spaces, a leading "::" (a GitHub
// workflow command) loses its colons' power, and it is clipped to 200 runes.
func Clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || sanitize.Unprintable(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "::", ": :")
	if rs := []rune(s); len(rs) > maxText {
		s = string(rs[:maxText-1]) + "…"
	}
	return s
}

// Find returns the prompt of target (name, region) and prompt id in r.
func (r *Record) Find(target, region, prompt string) (*Target, *Prompt) {
	for i := range r.Targets {
		t := &r.Targets[i]
		if t.Name != target || t.Region != region {
			continue
		}
		for j := range t.Prompts {
			if t.Prompts[j].ID == prompt {
				return t, &t.Prompts[j]
			}
		}
		return t, nil
	}
	return nil, nil
}

// FindTarget returns the target (name, region) of r, nil when absent.
func (r *Record) FindTarget(name, region string) *Target {
	i := slices.IndexFunc(r.Targets, func(t Target) bool { return t.Name == name && t.Region == region })
	if i < 0 {
		return nil
	}
	return &r.Targets[i]
}

// SafeURL returns s when it is an absolute http or https URL with a host
// and nothing a page could misread (no spaces, quotes, angle brackets,
// backslashes or control characters), else "": a history file anyone
// with push access can edit must not put a javascript: link on the page.
func SafeURL(s string) string {
	if len(s) > 2048 || strings.ContainsFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune("\"'<>\\`", r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
	}) {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return ""
	}
	return s
}
