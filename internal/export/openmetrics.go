// Package export writes a run's figures in the formats observability
// systems read: the OpenMetrics text exposition (Prometheus, Grafana, any
// collector that scrapes or backfills it), and every measured request as
// OTLP metrics to an OpenTelemetry collector (otlp.go).
//
// The OpenMetrics writers are pure: results and a comparison in, bytes
// out, encoded by the Prometheus project's own library (prometheus/common's
// expfmt over client_model), so names, label values and escaping are the
// format's, not hand-written. The OTLP export takes results and a
// collector's URL and posts them through the official OpenTelemetry Go SDK
// (OTLP/HTTP protobuf, the GenAI semantic conventions' names); it is the
// one part that waits on the network, bounded by its context, and it
// decides which collector from the standard OTEL_EXPORTER_OTLP_* variables
// (ResolveOTLP).
package export

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// Side is one measured run to export: File, and Name for a run that has
// several sides (ab's "base" and "candidate"; "" for check's one run, which
// then has no side label).
type Side struct {
	Name string
	File *results.File
}

// durations are the duration metrics exported, with what each is, and the
// statistics of each: one gauge family per metric × statistic, in seconds.
var durations = []struct{ name, what string }{
	{results.TTFT, "time to first token: send to the first token-bearing chunk (not the first byte)"},
	{results.TTFB, "time to first byte: send to the response headers"},
	{results.TTFCT, "time to first content token (after any reasoning)"},
	{results.ITL, "inter-token latency: the gap between consecutive token-bearing chunks"},
	{results.TPOT, "time per output token after the first"},
	{results.Total, "total time: send to the end of the stream"},
}

var statistics = []struct {
	name string
	of   func(*results.Summary) float64
}{
	{"p50", func(s *results.Summary) float64 { return s.P50 }},
	{"p95", func(s *results.Summary) float64 { return s.P95 }},
	{"p99", func(s *results.Summary) float64 { return s.P99 }},
	{"mean", func(s *results.Summary) float64 { return s.Mean }},
}

// OpenMetrics writes the runs of sides and, when rep is not nil, the
// gate's checks as OpenMetrics text, ending with "# EOF":
//
//   - latgate_<metric>_<stat>_seconds (gauge, unit seconds) per target ×
//     prompt, for ttft, ttfb, ttfct, itl, tpot and total at p50, p95, p99
//     and mean; latgate_tokens_per_second_p50 (gauge);
//   - latgate_requests and latgate_errors (gauges: this run's, not
//     counters across runs);
//   - latgate_check_ratio (current / baseline; candidate / base for ab) and
//     latgate_check_regressed (1 or 0) per gated check, and
//     latgate_check_verdict (1, the verdict a label) per check.
//
// Labels: side (only when a side has a name), target, region, prompt, api,
// model (the config's) and, on checks, metric, stat and kind (change, or
// limit for a check's absolute max: both may gate one statistic). A pooled
// check's prompt is "all prompts".
func OpenMetrics(w io.Writer, sides []Side, rep *compare.Report) error {
	var fams []*dto.MetricFamily
	family := func(name, help, unit string) *dto.MetricFamily {
		f := gaugeFamily(name, help, unit)
		fams = append(fams, f)
		return f
	}
	gauge := func(f *dto.MetricFamily, v float64, labels ...string) {
		m := &dto.Metric{Gauge: &dto.Gauge{Value: proto.Float64(v)}}
		for i := 0; i+1 < len(labels); i += 2 {
			if labels[i+1] == "" && labels[i] != "prompt" {
				continue // an unset region or side is no label
			}
			m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(labels[i]), Value: proto.String(labels[i+1])})
		}
		f.Metric = append(f.Metric, m)
	}
	type row struct {
		side string
		t    results.Target
		p    results.Prompt
	}
	var rows []row
	for _, s := range sides {
		if s.File == nil {
			continue
		}
		for _, t := range s.File.Targets {
			for _, p := range t.Prompts {
				rows = append(rows, row{s.Name, t, p})
			}
		}
	}
	labels := func(r row) []string {
		api := r.t.Params.API
		if api == "" {
			api = "chat"
		}
		return []string{"side", r.side, "target", r.t.Name, "region", r.t.Region, "prompt", r.p.ID, "api", api, "model", r.t.Model}
	}
	for _, d := range durations {
		for _, st := range statistics {
			f := family(fmt.Sprintf("latgate_%s_%s_seconds", d.name, st.name), fmt.Sprintf("%s, %s over the run's requests", d.what, st.name), "seconds")
			for _, r := range rows {
				if s := r.p.Metrics.Get(d.name); s != nil && s.N > 0 {
					gauge(f, seconds(st.of(s)), labels(r)...)
				}
			}
		}
	}
	tps := family("latgate_tokens_per_second_p50", "output tokens per second after the first token, p50 over the run's requests", "")
	reqs := family("latgate_requests", "measured requests of this run (warmups not counted)", "")
	errs := family("latgate_errors", "measured requests of this run that failed", "")
	for _, r := range rows {
		if s := r.p.Metrics.TokensPerS; s != nil && s.N > 0 {
			gauge(tps, s.P50, labels(r)...)
		}
		gauge(reqs, float64(r.p.Requests), labels(r)...)
		gauge(errs, float64(r.p.Errors), labels(r)...)
	}
	if rep != nil {
		ratio := family("latgate_check_ratio", "the gated statistic's change: current / baseline (candidate / base for ab); 1 is no change", "")
		regressed := family("latgate_check_regressed", "1 when the check regressed, else 0", "")
		verdict := family("latgate_check_verdict", "1, the check's verdict as the verdict label", "")
		checks := slices.Concat(rep.Aggregates, rep.Checks)
		slices.SortStableFunc(checks, func(a, b compare.Check) int {
			return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Region, b.Region), cmp.Compare(a.Prompt, b.Prompt),
				cmp.Compare(a.Metric, b.Metric), cmp.Compare(a.Stat, b.Stat))
		})
		for _, c := range checks {
			prompt := c.Prompt
			if len(c.Prompts) > 0 && c.Prompt == "" {
				prompt = "all prompts"
			}
			kind := "change" // against the baseline
			switch r := c.Rule(); {
			case r == compare.RuleLimit:
				kind = "limit" // an absolute max: a check of its own beside the change
			case !r.Builtin():
				kind = string(r) // a rule beyond the five (compare.RuleDef): its name
			}
			l := []string{"target", c.Target, "region", c.Region, "prompt", prompt, "metric", c.Metric, "stat", c.Stat, "kind", kind}
			if c.Ratio > 0 {
				gauge(ratio, c.Ratio, l...)
			}
			reg := 0.0
			if c.Verdict == compare.Regressed {
				reg = 1
			}
			gauge(regressed, reg, l...)
			gauge(verdict, 1, append(l, "verdict", strings.ToLower(string(c.Verdict)))...)
		}
	}
	return encode(w, fams)
}

// encode writes the families that have samples as OpenMetrics text, with
// the closing # EOF.
func encode(w io.Writer, fams []*dto.MetricFamily) error {
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeOpenMetrics))
	for _, f := range fams {
		if len(f.Metric) == 0 {
			continue // a family with no sample says nothing
		}
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("openmetrics: %w", err)
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		if err := c.Close(); err != nil {
			return fmt.Errorf("openmetrics: %w", err)
		}
	}
	return nil
}

// seconds is milliseconds in seconds, to the microsecond latgate measures
// (0.117693, not 0.11769299999999999).
func seconds(ms float64) float64 { return math.Round(ms*1000) / 1e6 }

// HistoryOpenMetrics writes a run history as timestamped OpenMetrics
// samples, for a backfill (promtool tsdb create-blocks-from openmetrics):
// per record (its time, to the second), target × prompt and recorded
// metric, one sample of each statistic it holds. Durations are gauges
// latgate_<metric>_<stat>_seconds; tokens per second
// latgate_tokens_per_second_<stat>. Labels: target, region, prompt and
// model (no commit: a label per commit would make every night a series of
// its own). Each series' samples are contiguous and in time order, as the
// format requires.
func HistoryOpenMetrics(w io.Writer, recs []history.Record) error {
	ordered := slices.SortedStableFunc(slices.Values(recs), func(a, b history.Record) int { return a.At.Compare(b.At) })
	byName := map[string]*dto.MetricFamily{}
	var names []string
	for _, r := range ordered {
		ts := r.At.Truncate(time.Second).UnixMilli()
		for _, t := range r.Targets {
			for _, p := range t.Prompts {
				for _, metric := range slices.Sorted(maps.Keys(p.Metrics)) {
					if !slices.Contains(results.GatedMetrics(), metric) {
						continue // a share (cache_hit_rate …) has its own checks, no latency
					}
					st := p.Metrics[metric]
					for _, s := range st.All() {
						v, _ := st.Get(s)
						name := "latgate_" + metric + "_" + s.String() + "_seconds"
						unit, help := "seconds", metric+" "+s.String()+" of one recorded run"
						if results.HigherIsBetter(metric) {
							name, unit = "latgate_tokens_per_second_"+s.String(), ""
						} else {
							v = seconds(v)
						}
						f, ok := byName[name]
						if !ok {
							f = gaugeFamily(name, help, unit)
							byName[name] = f
							names = append(names, name)
						}
						m := &dto.Metric{Gauge: &dto.Gauge{Value: proto.Float64(v)}, TimestampMs: proto.Int64(ts)}
						for _, l := range [][2]string{{"target", t.Name}, {"region", t.Region}, {"prompt", p.ID}, {"model", t.Model}} {
							if l[1] != "" {
								m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(l[0]), Value: proto.String(l[1])})
							}
						}
						f.Metric = append(f.Metric, m)
					}
				}
			}
		}
	}
	slices.Sort(names)
	for _, f := range byName {
		slices.SortStableFunc(f.Metric, func(a, b *dto.Metric) int {
			return cmp.Or(cmp.Compare(labelKey(a), labelKey(b)), cmp.Compare(a.GetTimestampMs(), b.GetTimestampMs()))
		})
		// Two runs in one second (a history of merged runners) are one
		// sample of a series: the later record's, as a backfill takes one
		// value per timestamp.
		kept := f.Metric[:0]
		for i, m := range f.Metric {
			if i+1 < len(f.Metric) && labelKey(m) == labelKey(f.Metric[i+1]) && m.GetTimestampMs() == f.Metric[i+1].GetTimestampMs() {
				continue // the next one is the same series at the same second, recorded later
			}
			kept = append(kept, m)
		}
		f.Metric = kept
	}
	fams := make([]*dto.MetricFamily, len(names))
	for i, n := range names {
		fams[i] = byName[n]
	}
	return encode(w, fams)
}

// gaugeFamily is an empty gauge family, its unit "" for none.
func gaugeFamily(name, help, unit string) *dto.MetricFamily {
	f := &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_GAUGE.Enum()}
	if unit != "" {
		f.Unit = proto.String(unit)
	}
	return f
}

// labelKey is a metric's label set as one comparable string.
func labelKey(m *dto.Metric) string {
	var b strings.Builder
	for _, l := range m.GetLabel() {
		b.WriteString(l.GetName() + "\x00" + l.GetValue() + "\x00")
	}
	return b.String()
}
