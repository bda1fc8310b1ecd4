package results

import (
	"maps"
	"slices"
	"time"
)

// AppendRound adds the samples and failures of round, a later measurement of
// some prompts of f's targets (check's sequential rounds), to f: requests are
// numbered on after each target's last, start times are shifted to f's
// start, counts, error rates, summaries and the overall are recomputed, and
// f finishes when round did. Targets and prompts of round that f lacks are
// ignored (a round only measures what f already holds). round is not
// modified; f shares its samples.
func AppendRound(f, round *File) {
	shift := float64(round.StartedAt.Sub(f.StartedAt)) / float64(time.Millisecond)
	for _, rt := range round.Targets {
		i := slices.IndexFunc(f.Targets, func(t Target) bool { return t.Name == rt.Name && t.Region == rt.Region })
		if i < 0 {
			continue
		}
		t := &f.Targets[i]
		offset := t.Requests
		for _, rp := range rt.Prompts {
			j := slices.IndexFunc(t.Prompts, func(p Prompt) bool { return p.ID == rp.ID })
			if j < 0 || rp.Requests == 0 {
				continue
			}
			p := &t.Prompts[j]
			for _, s := range rp.Samples {
				s.Seq += offset
				s.AtMS = round3(s.AtMS + shift)
				p.Samples = append(p.Samples, s)
			}
			for _, fl := range rp.Failures {
				fl.Seq += offset
				fl.AtMS = round3(fl.AtMS + shift)
				p.Failures = append(p.Failures, fl)
			}
			p.Requests += rp.Requests
			p.Errors += rp.Errors
			p.WallMS = round3(p.WallMS + rp.WallMS)
			p.ByClass = addCounts(p.ByClass, rp.ByClass)
			p.Metrics = MetricsOf(p.Samples)
		}
		t.Requests += rt.Requests
		t.Errors += rt.Errors
		t.WallMS = round3(t.WallMS + rt.WallMS) // time spent measuring, rounds added
		t.Retries += rt.Retries
		t.Usage = t.Usage.Plus(rt.Usage)
		t.Lateness = t.Lateness.Plus(rt.Lateness)
		t.Sends = t.Sends.Plus(rt.Sends)
		if rt.Usage != nil {
			t.RoundsUsage = t.RoundsUsage.Plus(rt.Usage)
		}
		t.ByClass = addCounts(t.ByClass, rt.ByClass)
		t.ErrorRate = 0
		if t.Requests > 0 {
			t.ErrorRate = float64(t.Errors) / float64(t.Requests)
		}
		t.ReturnedModels = union(t.ReturnedModels, rt.ReturnedModels)
		t.SystemFingerprints = union(t.SystemFingerprints, rt.SystemFingerprints)
		var all []Sample
		for _, p := range t.Prompts {
			all = append(all, p.Samples...)
		}
		t.Overall = Prompt{ID: "overall", Requests: t.Requests, Errors: t.Errors, ByClass: t.ByClass, Metrics: MetricsOf(all)}
	}
	if round.FinishedAt.After(f.FinishedAt) {
		f.FinishedAt = round.FinishedAt
	}
	if round.Partial {
		f.Partial, f.PartialReason = true, round.PartialReason
	}
}

func addCounts(a, b map[string]int) map[string]int {
	if len(b) == 0 {
		return a
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]int{}
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
