package trend

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// Provenance is what a baseline or a run says about where and with what it
// measured.
type Provenance struct {
	At      time.Time
	Commit  string
	Version string
	// Runner is nil when unknown (a baseline blessed before runners were
	// recorded, or blessed --from a results file).
	Runner *results.Runner
	// Endpoints are per target label ("name" or "name@region") what the
	// endpoint said it was.
	Endpoints map[string]Endpoint
}

// Endpoint is what an endpoint returned about itself.
type Endpoint struct {
	Models, Fingerprints []string
}

// Blessed describes when and where a baseline was blessed, for the head of
// every report: "blessed 2026-11-01 03:00 UTC (23 days ago) at commit c0ffee
// on Linux/X64 runner-1 by latgate v1.2.0". The age is counted to now; a
// zero now leaves it out.
func Blessed(b Provenance, now time.Time) string { return blessed(b, now, "ago") }

// BlessedBefore is Blessed with the age counted to a run's time, for a
// report on saved files: "(23 days before the run)".
func BlessedBefore(b Provenance, run time.Time) string { return blessed(b, run, "before the run") }

func blessed(b Provenance, ref time.Time, rel string) string {
	s := "blessed " + b.At.UTC().Format("2006-01-02 15:04 MST")
	if !ref.IsZero() {
		if d := ref.Sub(b.At); d < 0 {
			s += " (in the future: check the clocks)"
		} else {
			s += " (" + Age(d) + " " + rel + ")"
		}
	}
	if b.Commit != "" {
		s += " at commit " + short(b.Commit)
	}
	if b.Runner != nil {
		s += " on " + b.Runner.String()
	}
	if b.Version != "" {
		s += " by latgate " + b.Version
	}
	return s
}

// Age says how long in words: "5 minutes", "5 hours", "23 days"; a negative
// duration (a time ahead of the clock) is "in the future". It is total:
// every time.Duration gives words, the saturated ones that time.Sub returns
// for a date centuries away included (negating the most negative duration
// gives itself back, so Age must never recurse on -d).
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "in the future"
	case d < 2*time.Hour:
		return plural(int64(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int64(d/time.Hour), "hour")
	}
	return plural(int64(d/(24*time.Hour)), "day")
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// Staleness returns the warnings that the baseline may no longer describe
// the endpoint a run measured: older than maxAge (0: no limit); another
// returned model or system fingerprint; another runner; another latgate
// release version (development builds are not compared). cur is the newest
// run; its zero fields are not compared.
func Staleness(base, cur Provenance, maxAge time.Duration, now time.Time) []string {
	var out []string
	if maxAge > 0 && !now.IsZero() && now.Sub(base.At) > maxAge {
		out = append(out, fmt.Sprintf("the baseline is stale: %s, older than gate.max_baseline_age (%s); re-bless it (latgate bless) so the gate compares with today's endpoint",
			blessed(base, now, "old"), days(maxAge)))
	}
	labels := make([]string, 0, len(cur.Endpoints))
	for l := range cur.Endpoints {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	for _, l := range labels {
		c, b := cur.Endpoints[l], base.Endpoints[l]
		if len(c.Models) > 0 && len(b.Models) > 0 && !slices.Equal(sorted(c.Models), sorted(b.Models)) {
			out = append(out, fmt.Sprintf("target %s: the endpoint now returns model %s, the baseline was blessed with %s: another model build may change latency; re-bless once the change is understood",
				l, strings.Join(sorted(c.Models), ", "), strings.Join(sorted(b.Models), ", ")))
		}
		if len(c.Fingerprints) > 0 && len(b.Fingerprints) > 0 && !slices.Equal(sorted(c.Fingerprints), sorted(b.Fingerprints)) {
			out = append(out, fmt.Sprintf("target %s: the system fingerprint changed since bless (%s → %s): the provider changed its serving system",
				l, strings.Join(sorted(b.Fingerprints), ", "), strings.Join(sorted(c.Fingerprints), ", ")))
		}
	}
	if base.Runner != nil && cur.Runner != nil && *base.Runner != *cur.Runner {
		out = append(out, fmt.Sprintf("measured on %s, but the baseline on %s: latency depends on where it is measured from; bless and check from the same kind of runner",
			cur.Runner, base.Runner))
	}
	if release(base.Version) && release(cur.Version) && base.Version != cur.Version {
		out = append(out, fmt.Sprintf("latgate %s measured this, the baseline was blessed by latgate %s", cur.Version, base.Version))
	}
	return out
}

// releaseRE matches a release version (v1.2.3, v1.2.3-rc.1): development
// builds ("(devel)", "v0.1.0-dev", pseudo-versions) differ by nature, and
// saying so on every run would bury the warnings that matter.
var releaseRE = regexp.MustCompile(`^v\d+\.\d+\.\d+(-(rc|beta|alpha)\.?\d+)?$`)

func release(v string) bool { return releaseRE.MatchString(v) }

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}

func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}
