package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
)

// AB names what an A/B comparison (`latgate ab`) compared: the two configs
// (the same file twice for two targets of one config), and how the run was
// laid out, for the head of every rendering.
type AB struct {
	Base, Candidate string // the configs' paths
	// Blocks is the blocks per prompt measured (the candidate's requests),
	// at most; Seed the seed of their order.
	Blocks int
	Seed   int64
	// Chunk is --block under --schedule blocks (0: interleaved).
	Chunk int
}

// compared is the head line of an A/B report: what against what, how
// measured and how the intervals are made.
func (ab AB) compared(rep compare.Report) string {
	what := fmt.Sprintf("candidate %s against base %s", ab.Candidate, ab.Base)
	if ab.Base == ab.Candidate {
		what = "two targets of " + ab.Base
	}
	how := fmt.Sprintf("a block is one request of each side, sent together in a seeded order, seed %d", ab.Seed)
	if ab.Chunk > 0 {
		how = fmt.Sprintf("a block is one request of each side; in ABBA runs of %d rounds a side (--schedule blocks), the leading side drawn with seed %d", ab.Chunk, ab.Seed)
	}
	return fmt.Sprintf("A/B: %s, measured together: up to %d blocks per prompt (%s); "+
		"%s intervals paired by block (p50: Hodges–Lehmann of the blocks' ratios; other statistics: each side's distribution-free interval, combined with the blocks' correlation)",
		what, ab.Blocks, how, confPct(rep.Confidence))
}

// Faster says which side each check found faster, one line per target and
// prompt (the pooled checks first, "all prompts"), as
//
//	sim, all prompts: candidate faster: ttft p50 -38% [-41%, -35%]; base faster: itl p50 +12% [+8%, +15%]; no difference resolved: itl p95 +1% [-3%, +5%]
//
// The side is the interval's side of no change (compare.Check.Faster), not
// the verdict, which holds the change to the tolerance.
func Faster(rep compare.Report) []string {
	type key struct{ target, prompt string }
	var order []key
	by := map[key]map[string][]string{}
	for _, cs := range [][]compare.Check{rep.Aggregates, rep.Checks} {
		for _, c := range cs {
			if isLimit(c) || !hasData(c) {
				continue
			}
			k := key{targetOf(c), promptOf(c)}
			if by[k] == nil {
				by[k] = map[string][]string{}
				order = append(order, k)
			}
			side := c.Faster()
			ci := interval(c)
			if ci == "-" {
				ci = "(no interval yet: too few blocks)"
			}
			by[k][side] = append(by[k][side], fmt.Sprintf("%s %s %s", checkOf(c), change(c), ci))
		}
	}
	var out []string
	for _, k := range order {
		var parts []string
		for _, s := range []struct{ side, say string }{{"candidate", "candidate faster"}, {"base", "base faster"}, {"", "no difference resolved"}} {
			if cs := by[k][s.side]; len(cs) > 0 {
				parts = append(parts, s.say+": "+strings.Join(cs, ", "))
			}
		}
		out = append(out, k.target+", "+k.prompt+": "+strings.Join(parts, "; "))
	}
	return out
}

// abDiffers names the differences between the sides for an outcome line:
// "base → candidate: model a → b; edited: p".
func abDiffers(detail string, rep compare.Report) string {
	if s := changeSummary(rep); s != "" {
		return detail + " — base → candidate: " + s
	}
	return detail
}

// abChange is one difference between the sides in words.
func abChange(c compare.Change) string {
	if c.Kind == compare.ChangeEdited {
		return ChangeWhere(c) + ": the prompt's text differs: compared, labelled \"edited\""
	}
	return ChangeWhere(c) + ": " + ChangeLabel(c) + ": compared, labelled"
}

// abNext is the line an A/B run ends with when it failed or left gated
// checks undecided: what to do now. Undecided checks are said as check
// says them (nextStep), with gate.on_inconclusive's effect, in blocks.
func abNext(rep compare.Report, ab AB, opts Options) string {
	if rep.Verdict != compare.Regressed {
		return abUndecided(rep, ab, opts)
	}
	s := "next: the candidate is slower than the gate's tolerance allows. If that is not intended, keep the base's config"
	if opts.Rerun != "" {
		s += " (or find the cause and re-run: " + opts.Rerun + ")"
	}
	s += "; if it is (a new model, a longer prompt), accept it: merge it and bless its baseline"
	if opts.Bless != "" {
		s += " (" + opts.Bless + ")"
	}
	return s
}

// abUndecided is the note (or, when it fails the run, the next step) of
// an A/B run whose gated checks stayed undecided: how many, what
// gate.on_inconclusive (or --strict) made of them, and how many more
// blocks would decide them.
func abUndecided(rep compare.Report, ab AB, opts Options) string {
	fails := rep.Verdict.Fails(opts.Strict)
	undecided := compare.Undecided(rep)
	if len(undecided) == 0 {
		if fails {
			return "next: the gate decided nothing (see the warnings), which fails under --strict or gate.on_inconclusive: fail"
		}
		return ""
	}
	word := "note"
	if fails {
		word = "next"
	}
	policy := ""
	switch {
	case opts.Strict:
	case opts.OnInconclusive == config.OnInconclusivePass:
		policy = " (gate.on_inconclusive: pass)"
	default:
		policy = " (gate.on_inconclusive: warn passes it; fail, or --strict, fails it)"
	}
	most, at := 0, false
	for _, c := range undecided {
		if c.More < 0 {
			at = true
		}
		most = max(most, c.More)
	}
	var take []string
	if most > 0 {
		take = append(take, fmt.Sprintf("about %d more blocks per prompt would decide them (raise run.max_requests in %s)", most, ab.Candidate))
	}
	if at {
		take = append(take, "a change at the tolerance itself, which no planned number of blocks decides")
	}
	if len(take) == 0 {
		take = append(take, "more blocks may decide them (raise run.max_requests in "+ab.Candidate+")")
	}
	return fmt.Sprintf("%s: %s stayed undecided after the planned rounds%s: %s", word,
		plural(len(undecided), "gated check", "gated checks"), policy, strings.Join(take, "; "))
}

// ABVerdicts writes the text report of `latgate ab`: what was compared, the
// verdict table (base → candidate), which side was faster per prompt and
// overall, what differs between the sides, the warnings and the outcome.
func ABVerdicts(w io.Writer, rep compare.Report, ab AB, opts Options) error {
	ew := &errWriter{w: w}
	fmt.Fprintln(ew, wrap(ab.compared(rep), lineWidth, "  "))
	if all := ordered(rep); len(all) > 0 {
		fmt.Fprintln(ew)
		lab := labelled(rep)
		rows := [][]string{{"target", "prompt", "check", "base", "candidate", "change", confPct(rep.Confidence) + " CI", "allows", "verdict"}}
		if lab {
			rows[0] = append(rows[0], "base → candidate")
		}
		for _, c := range all {
			prompt := promptOf(c)
			if isAggregate(c) {
				prompt = textAggregateLabel
			}
			r := []string{targetOf(c), prompt, checkOf(c),
				sideValue(c, c.Baseline, c.NBase), sideValue(c, c.Current, c.NCur),
				change(c), tableInterval(c), threshold(c), abVerdictCell(c, opts.Strict)}
			if isLimit(c) {
				r[3] = "-" // a limit holds the candidate alone
			}
			if lab {
				r = append(r, labels(c))
			}
			rows = append(rows, r)
		}
		for _, col := range []int{3, 4, 5, 6} {
			alignRight(rows, col)
		}
		for i, r := range rows {
			sep := " → "
			if i == 0 {
				sep = "   "
			}
			rows[i] = append(append(r[:3:3], r[3]+sep+r[4]), r[5:]...)
		}
		notes := map[int]string{}
		rows = fitChecks(rows, notes, all, lab, "base → candidate: ", opts)
		if err := tableNotes(ew, rows, notes); err != nil {
			return err
		}
		sep := "\n"
		for _, note := range []string{decisionNote(rep, aggregateLabel), CostLine("", opts.Cost)} { // no day-to-day term: both sides measured together
			if note != "" {
				fmt.Fprint(ew, sep+wrap(note, lineWidth, "  ")+"\n")
				sep = ""
			}
		}
	}
	if lines := Faster(rep); len(lines) > 0 {
		fmt.Fprintln(ew, "\nfaster, by check (the side of no change the whole interval lies on):")
		for _, l := range lines {
			fmt.Fprintln(ew, "  "+wrap(l, lineWidth-2, "    "))
		}
	}
	if len(rep.Changes) > 0 {
		fmt.Fprintln(ew, "\nwhat differs, base → candidate:")
		for _, c := range rep.Changes {
			fmt.Fprintln(ew, "  "+wrap(abChange(c), lineWidth-2, "    "))
		}
	}
	if len(rep.Warnings)+len(rep.Found) > 0 {
		fmt.Fprintln(ew)
		for _, warn := range Warnings(rep) {
			fmt.Fprintln(ew, wrap("warning: "+warn, lineWidth, "         "))
		}
	}
	status, detail := outcome(rep, opts.Strict)
	fmt.Fprintf(ew, "\n%s\n", wrap(status+": "+abDiffers(detail, rep), lineWidth, "      "))
	if next := abNext(rep, ab, opts); next != "" {
		fmt.Fprintln(ew, wrap(next, lineWidth, "      "))
	}
	return ew.err
}

// abVerdictCell is the verdict column of an A/B table: check's, with what
// would decide an inconclusive check in blocks (one request of each side).
func abVerdictCell(c compare.Check, strict bool) string {
	if c.Verdict != compare.Inconclusive || isLimit(c) || c.Diagnostic {
		return verdictCell(c, strict)
	}
	w := verdictWord(c.Verdict, strict)
	switch {
	case c.More < 0:
		return w + ", at the tolerance"
	case c.More > 0:
		return fmt.Sprintf("%s, ~%d more blocks", w, c.More)
	}
	return w
}

// ABMarkdown writes the A/B comparison for a pull-request comment and the
// job summary: a heading with the status, the outcome, both configs named,
// the faster side per prompt and overall, a table per target, the
// differences, the warnings and how to read it.
func ABMarkdown(w io.Writer, rep compare.Report, ab AB, opts Options) error {
	ew := &errWriter{w: w}
	status, detail := outcome(rep, opts.Strict)
	icon := "✅"
	if strings.HasPrefix(status, "FAIL") {
		icon = "❌"
	}
	fmt.Fprintf(ew, "## %s latgate ab: %s\n\n%s\n\n", icon, status, sanitize.Markdown(abDiffers(detail, rep)))
	how := "interleaved"
	if ab.Chunk > 0 {
		how = fmt.Sprintf("in ABBA blocks of %d rounds a side", ab.Chunk)
	}
	fmt.Fprintf(ew, "Candidate %s against base %s, both measured in this job, %s.\n\n", sanitize.CodeSpan(ab.Candidate), sanitize.CodeSpan(ab.Base), how)
	if lines := Faster(rep); len(lines) > 0 {
		fmt.Fprint(ew, "**Faster**, by check:\n\n")
		for _, l := range lines {
			fmt.Fprintf(ew, "- %s\n", sanitize.Markdown(l))
		}
		fmt.Fprintln(ew)
	}
	fmt.Fprintf(ew, "<sub>%s</sub>\n", sanitize.Markdown(ab.compared(rep)))
	all := ordered(rep)
	for _, target := range targets(all) {
		fmt.Fprintf(ew, "\n### %s\n\n", sanitize.Markdown(target))
		mdVerdictRows(ew, rep, all, target, mdColumns{sides: "base → candidate", labels: "base → candidate differs"},
			func(c compare.Check) string {
				if isLimit(c) {
					return "-"
				}
				return sideValue(c, c.Baseline, c.NBase)
			},
			func(c compare.Check) string { return mdVerdict(c.Verdict, opts.Strict) })
	}
	for _, note := range []string{decisionNote(rep, aggregateLabel), CostLine("", opts.Cost)} {
		if note != "" {
			fmt.Fprintf(ew, "\n%s\n", sanitize.Markdown(note))
		}
	}
	if len(rep.Changes) > 0 {
		fmt.Fprint(ew, "\n### What differs, base → candidate\n\n")
		for _, c := range rep.Changes {
			fmt.Fprintf(ew, "- %s\n", sanitize.Markdown(abChange(c)))
		}
	}
	if len(rep.Warnings)+len(rep.Found) > 0 {
		fmt.Fprint(ew, "\n### Warnings\n\n")
		for _, warn := range Warnings(rep) {
			fmt.Fprintf(ew, "- %s\n", sanitize.Markdown(warn))
		}
	}
	if next := abNext(rep, ab, opts); next != "" {
		fmt.Fprintf(ew, "\n%s\n", sanitize.Markdown(next))
	}
	fmt.Fprintf(ew, "\n<details><summary>How to read this</summary>\n\n%s\n\n</details>\n", abHowToRead(rep))
	return ew.err
}

func abHowToRead(rep compare.Report) string {
	s := fmt.Sprintf("*change* is candidate ÷ base − 1 for the statistic, both sides measured together in blocks (one request of each, "+
		"sent together in a random order), so a drift of the endpoint hits both. *%[1]s CI* pairs the sides by block: for p50, "+
		"the Hodges–Lehmann estimate of the blocks' own ratios with its signed-rank interval; for the other statistics, the ratio over "+
		"all blocks, each side's distribution-free interval (Woodruff's, blocks as clusters) combined with the correlation of the blocks' two requests. A check *regressed* when the whole interval lies above the "+
		"tolerance, *ok* when it rules that out, *improved* when it lies as far below, *inconclusive* otherwise; *faster* names the "+
		"side of no change (±0%%) the whole interval lies on. *%[2]s* pools a target's prompts, weighted by their precision.",
		confPct(rep.Confidence), aggregateLabel)
	if slices.ContainsFunc(ordered(rep), isLimit) {
		s += " A *max* check holds the candidate's statistic alone to an absolute limit."
	}
	return s
}

// InterferenceWarnings says, one warning per target pair, that a side of
// an A/B run was slower right after the other side's request than right
// after its own (compare.Interference), with the figures, what it likely
// is and what to do; block is the run's --block under --schedule blocks
// (0: interleaved):
//
//	interleaving changes latency on sim ⇄ sim: base requests sent right after a candidate request have TTFT P50 43.7 ms (44 requests), 3.46 ms right after a base request (15): ×13 [×12, ×13]; candidate …. The server likely …
func InterferenceWarnings(ins []compare.Interfered, block int) []string {
	var out []string
	for k := 0; k < len(ins); {
		pair := ins[k].Pair
		var sides []string
		for ; k < len(ins) && ins[k].Pair == pair; k++ {
			in := ins[k]
			other := "candidate"
			if in.Side == "candidate" {
				other = "base"
			}
			sides = append(sides, fmt.Sprintf("%s requests sent right after a %s request have TTFT P50 %s (%d requests), %s right after a %s request (%d): ×%s [×%s, ×%s]",
				in.Side, other, numfmt.Millis(in.AfterOther), in.NOther, numfmt.Millis(in.AfterOwn), in.Side, in.NOwn, times(in.Ratio), times(in.Lo), times(in.Hi)))
		}
		head := "interleaving changes latency on " + pair + ": " + strings.Join(sides, "; ")
		if block > 0 {
			out = append(out, head+fmt.Sprintf(". The first request of each block of %d rounds pays it, on both sides alike, and pairs with the other side's; raise --block if that is much of a block", block))
			continue
		}
		out = append(out, head+". The server likely holds one model at a time and reloads it on every switch (Ollama serving two option sets of one model does): "+
			"both sides measured the reloads, so this comparison says little about either. Measure in blocks instead: latgate ab --schedule blocks "+
			"(ABBA blocks of 10 rounds a side, still paired; --block N to change)")
	}
	return out
}

// times is a ratio as a multiplier, two significant digits: 1.3, 33.
func times(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.2g", r)
}
