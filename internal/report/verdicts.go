package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/compare"
)

// Verdicts writes the verdict table of `check` and `compare`, benchstat
// style and at most 100 columns at the defaults: what was compared, one row
// per check and per-target aggregate in the config's order (opts.Order),
// each with the statistic before → after, the change and its interval, the
// change the check allows at this baseline (its tolerance or its floor,
// whichever is the larger), and the verdict; then the
// warnings, and one final line with the gate's outcome, for example
//
//	FAIL: 2 regressions (primary/greeting ttft p95 +38%, …); 8 ok, 1 inconclusive (…)
//
// The target is a column only when there are several. The tolerance in
// words ("+20% or 20 ms, whichever is larger") is in the Markdown and JUnit
// reports. Under opts.Strict an inconclusive check fails the gate and the
// line says so.
func Verdicts(w io.Writer, rep compare.Report, opts Options) error {
	ew := &errWriter{w: w}
	fmt.Fprintln(ew, wrap(provenance(rep, opts), lineWidth, "  "))
	if all := inOrder(rep, opts); len(all) > 0 || len(rep.New) > 0 {
		fmt.Fprintln(ew)
		lab := labelled(rep)
		multi := len(targets(append(slices.Clone(all), rep.New...))) > 1
		lead := func(c compare.Check, prompt string) []string {
			if multi {
				return []string{targetOf(c), prompt}
			}
			return []string{prompt}
		}
		head := append(lead(compare.Check{}, "prompt"), "check", "baseline", "current", "change", ciHead(rep), "allows", "verdict")
		if multi {
			head[0] = "target"
		}
		if lab {
			head = append(head, "changed")
		}
		rows := [][]string{head}
		for _, c := range all {
			prompt := promptOf(c)
			if isAggregate(c) {
				prompt = textAggregateLabel
			}
			r := append(lead(c, prompt), checkOf(c),
				sideValue(c, c.Baseline, c.NBase), sideValue(c, c.Current, c.NCur),
				change(c), tableInterval(c), threshold(c), verdictCell(c, opts.Strict))
			if lab {
				r = append(r, labels(c))
			}
			rows = append(rows, r)
		}
		for _, c := range rep.New {
			rows = append(rows, append(lead(c, c.Prompt), checkOf(c), "-", sideValue(c, c.Current, c.NCur),
				"-", "-", "-", newWord, labels(c)))
		}
		k := len(lead(compare.Check{}, "")) + 1 // the baseline column
		for _, col := range []int{k, k + 1, k + 2, k + 3, k + 4} {
			alignRight(rows, col)
		}
		// baseline and current share a column, their arrows aligned, and
		// so do the change and its interval.
		for i, r := range rows {
			sep := " → "
			if i == 0 {
				sep = "   "
			}
			rows[i] = append(append(r[:k:k], r[k]+sep+r[k+1], r[k+2]+" "+r[k+3]), r[k+4:]...)
		}
		// A regression's attribution is a line of its own under its row.
		notes := map[int]string{}
		for i, c := range all {
			if line, ok := attribution(c); ok {
				notes[i+1] = whyArrow + wrap(line, lineWidth-len([]rune(whyArrow)), strings.Repeat(" ", len([]rune(whyArrow))))
			}
		}
		rows = fitChecks(rows, notes, append(slices.Clone(all), rep.New...), lab, "changed since baseline: ", opts)
		if err := tableNotes(ew, rows, notes); err != nil {
			return err
		}
		sep := "\n"
		for _, line := range []string{decisionNote(rep, textAggregateLabel), noiseNote(rep), CostLine("", opts.Cost)} {
			if line != "" {
				fmt.Fprint(ew, sep+wrap(line, lineWidth, "  ")+"\n")
				sep = ""
			}
		}
	}
	if len(rep.Changes) > 0 {
		fmt.Fprintln(ew)
		if err := Changes(ew, rep.Changes, "changed since the baseline (bless to accept):"); err != nil {
			return err
		}
	}
	if len(rep.Warnings)+len(rep.Found) > 0 {
		fmt.Fprintln(ew)
		for _, warn := range Warnings(rep) {
			fmt.Fprintln(ew, wrap("warning: "+warn, lineWidth, "         "))
		}
	}
	status, detail := outcome(rep, opts.Strict)
	fmt.Fprintln(ew, "\n"+wrap(status+": "+withChanges(detail, rep), lineWidth, "      "))
	if next := nextStep(rep, opts); next != "" {
		fmt.Fprintln(ew, wrap(next, lineWidth, "      "))
	}
	return ew.err
}

// prefixNote returns note (a row's why line) after a line break, or "".
func prefixNote(note string) string {
	if note == "" {
		return ""
	}
	return "\n" + note
}

// verdictCell is the verdict column: the word, and for inconclusive what
// would decide it, short ("~40 more" requests per prompt; a "thin baseline"
// no number of requests decides: bless with more); an ok check's interval
// says what it ruled out.
func verdictCell(c compare.Check, strict bool) string {
	w := verdictWord(c.Verdict, strict)
	if s := limitVerdict(c); s != "" {
		return w + s
	}
	if c.IsShare() {
		switch {
		case isFloor(c) && c.Verdict == compare.OK:
			return fmt.Sprintf("%s, ≥ %s ruled in", w, sharePercent(c.Min))
		case isFloor(c) && c.Verdict == compare.Regressed:
			return fmt.Sprintf("%s, %s %s < min %s", w, sharePercent(c.Current), shareInterval(c), sharePercent(c.Min))
		case isFloor(c) && c.Verdict == compare.Inconclusive && c.More < 0:
			return w + ", on the limit"
		}
	}
	if c.Verdict == compare.Inconclusive {
		switch {
		case c.Diagnostic:
			return w + " (pooled)"
		case c.Stuck == compare.StuckRunner:
			return w + ": runner busy"
		case c.Stuck == compare.StuckSchedule:
			return w + ": schedule missed"
		case c.Stuck == compare.StuckDayToDay:
			return w + ": day-to-day noise"
		case c.More < 0:
			return w + ": thin baseline"
		case c.More > 0:
			return fmt.Sprintf("%s: ~%d more", w, c.More)
		}
	}
	return w
}

// decisionNote says who decides, under the table of a report with pooled
// checks, their rows named label: `decided per target by its "all prompts"
// rows, all its prompts' requests pooled (their baseline: …); a prompt fails the run only
// beyond its tolerance after adjusting for its check's 2 prompt tests
// (Holm); "(pooled)" prompt rows do not hold the run undecided`.
func decisionNote(rep compare.Report, label string) string {
	if len(rep.Aggregates) == 0 || !slices.ContainsFunc(rep.Checks, func(c compare.Check) bool { return c.Diagnostic }) {
		return "" // nothing pooled into a deciding check
	}
	fam, cond := 0, false
	for _, c := range rep.Checks {
		fam = max(fam, c.Family)
		cond = cond || c.Beyond > 0
	}
	adjusted := ""
	switch {
	case fam > 1 && cond:
		adjusted = fmt.Sprintf(" after adjusting for those of its check's %d prompt tests beyond tolerance (Holm)", fam)
	case fam > 1:
		adjusted = fmt.Sprintf(" after adjusting for its check's %d prompt tests (Holm)", fam)
	}
	rows := "" // said only when a row shows "(pooled)": an undecided prompt check that informs
	if slices.ContainsFunc(rep.Checks, func(c compare.Check) bool { return c.Diagnostic && c.Verdict == compare.Inconclusive }) {
		rows = "; \"(pooled)\" prompt rows do not hold the run undecided"
	}
	return fmt.Sprintf("decided per target by its %q rows, all its prompts' requests pooled (their baseline: the geometric mean of "+
		"the prompts' baselines; their current: that × the pooled change); a prompt fails the run only beyond its tolerance%s%s",
		label, adjusted, rows) + unpooledNote(rep)
}

// unpooledNote names the gated checks a report has no pooled row for
// because they were decided on the difference scale (a side's interval
// reaches 0 ms, as the ITL P50 of tokens that arrive several in one read:
// no ratio to pool), so that a missing row reads as a decision, not a bug:
// `; itl p50 has no pooled row: a side reaches 0 ms (tokens sharing one
// read), so each prompt decides it alone, in ms`.
func unpooledNote(rep compare.Report) string {
	targets := map[string]bool{}
	for _, c := range rep.Checks {
		targets[targetOf(c)] = true
	}
	var names []string
	for _, c := range rep.Checks {
		name := c.Metric + " " + c.Stat
		if len(targets) > 1 {
			name = targetOf(c) + " " + name
		}
		if c.Scale == compare.ScaleDifference && !c.Diagnostic && !slices.Contains(names, name) &&
			!slices.ContainsFunc(rep.Aggregates, func(a compare.Check) bool {
				return targetOf(a) == targetOf(c) && a.Metric == c.Metric && a.Stat == c.Stat
			}) {
			names = append(names, name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "; " + names[0] + " has no pooled row: a side reaches 0 ms (tokens sharing one read), so each prompt decides it alone, in ms"
	}
	return "; " + strings.Join(names, ", ") + " have no pooled rows: a side reaches 0 ms (tokens sharing one read), so each prompt decides them alone, in ms"
}

// noiseNote says what day-to-day noise the intervals carry and where it
// came from, and, when it is large, what one run cannot resolve:
//
//	day-to-day noise ±1% per run (assumed: no history of 20 runs to learn it from) widens each interval by ±2.8%
//	day-to-day noise ±10% per run (ttft, from 24 runs of the history) widens each interval by up to ±28%: one run cannot
//	tell a change within that of its tolerance from a bad day; compare both sides in one run (latgate ab) or watch the nightly trend
func noiseNote(rep compare.Report) string {
	type src struct {
		sigma     float64
		runs, lag int
		from      string // the statistic it was learned from, when not the check's own
	}
	// Learned per statistic (compare.Noise): a label per metric when its
	// statistics share one, else per "metric stat".
	type stat struct{ metric, stat string }
	seen := map[stat]src{}
	var stats []stat
	widest := 0.0
	for _, c := range slices.Concat(rep.Aggregates, rep.Checks) {
		if isLimit(c) || c.NBase == 0 || c.IsShare() { // a share's interval carries no day-to-day noise
			continue
		}
		k := stat{c.Metric, c.Stat}
		if _, ok := seen[k]; !ok {
			stats = append(stats, k)
		}
		seen[k] = src{c.DayNoise, c.DayRuns, c.DayLag, c.DayFrom}
		widest = max(widest, math.Expm1(dayHalfWidth(c)))
	}
	metrics, statOf := map[string]src{}, map[string]string{}
	var order []string
	for _, k := range stats {
		alike := !slices.ContainsFunc(stats, func(o stat) bool { return o.metric == k.metric && seen[o] != seen[k] })
		label := k.metric
		if !alike {
			label = k.metric + " " + k.stat
		}
		if _, ok := metrics[label]; !ok {
			order = append(order, label)
		}
		metrics[label], statOf[label] = seen[k], k.stat
	}
	if len(order) == 0 || !slices.ContainsFunc(order, func(m string) bool { return metrics[m] != src{} }) {
		return "" // none: an old report, or gate.day_to_day: 0 and no history
	}
	describe := func(n src, metric string) string {
		var age string
		if n.from != "" { // records older than the statistic
			age = fmt.Sprintf(", its %s's: the history's records keep no %s", n.from, statOf[metric])
		}
		if n.lag > 0 {
			age += fmt.Sprintf(", read at the baseline's age of %d+ runs: its level wanders from run to run", n.lag)
		}
		switch {
		case n.runs > 0 && metric != "":
			return fmt.Sprintf("%s ±%s per run (from %d runs of the history%s)", metric, pctNum(n.sigma), n.runs, age)
		case n.runs > 0:
			return fmt.Sprintf("±%s per run (from %d runs of the history%s)", pctNum(n.sigma), n.runs, age)
		case metric != "":
			return fmt.Sprintf("%s ±%s per run (assumed)", metric, pctNum(n.sigma))
		}
		return fmt.Sprintf("±%s per run (assumed: no history of %d runs to learn it from)", pctNum(n.sigma), compare.MinDayRuns)
	}
	var parts []string
	if !slices.ContainsFunc(order, func(m string) bool { return metrics[m] != metrics[order[0]] }) {
		parts = append(parts, describe(metrics[order[0]], ""))
	} else {
		for _, m := range order {
			parts = append(parts, describe(metrics[m], m))
		}
	}
	line := fmt.Sprintf("day-to-day noise %s widens each interval by up to ±%s", strings.Join(parts, "; "), pctNum(widest))
	if widest >= 0.10 {
		line += ": one run cannot tell a change within that of its tolerance from a bad day; compare both sides in one run (latgate ab) or watch the nightly trend"
	}
	return line
}

// dayHalfWidth is the part of a check's interval half-width (log units, at
// the level of its wider end) the day-to-day noise accounts for: z·√2·σ.
func dayHalfWidth(c compare.Check) float64 {
	level := c.Level
	if level == 0 {
		level = c.Confidence
	}
	z := math.Sqrt2 * math.Erfinv(level)
	ok := c.OkLevel
	if ok == 0 {
		ok = c.OkConfidence
	}
	if ok > 0.5 && ok < 1 {
		z = max(z, math.Sqrt2*math.Erfinv(2*ok-1)) // the one-sided ok level's z
	}
	return z * math.Sqrt2 * c.DayNoise
}

// pctNum formats a fraction as a short percentage: 0.014 → "1.4%", 0.1 → "10%".
func pctNum(x float64) string {
	v := 100 * x
	if v < 10 && math.Abs(v-math.Round(v)) > 0.05 {
		return fmt.Sprintf("%.1f%%", v)
	}
	return fmt.Sprintf("%.0f%%", v)
}

// limitVerdict is what follows the verdict word of a limit check, for
// example ", p95 ≤ 800 ms ruled in" or ", p95 912 ms [871, 960] > max 800 ms";
// empty for other checks and for an inconclusive one that more requests may
// decide (the text table says how many).
func limitVerdict(c compare.Check) string {
	if !isLimit(c) {
		return ""
	}
	switch {
	case c.Verdict == compare.OK:
		return fmt.Sprintf(", %s ≤ %s ruled in", c.Stat, numfmt.Millis(c.Max))
	case c.Verdict == compare.Regressed:
		return fmt.Sprintf(", %s %s [%s] > %s", c.Stat, numfmt.Millis(c.Current), limitInterval(c), limitOf(c))
	case c.Verdict == compare.Inconclusive && c.More < 0:
		return ", on the limit"
	}
	return ""
}

// verdictWord is the verdict as the text table shows it: the ones that fail
// the gate in capitals.
func verdictWord(v compare.Verdict, strict bool) string {
	if v.Fails(strict) {
		return strings.ToUpper(string(v))
	}
	return string(v)
}

// lineWidth is the width the text output keeps prose to.
const lineWidth = 100

// wrap breaks s at spaces into lines of at most width runes where it can,
// indenting the continuation lines.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + indent)
			col = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// Wrap is wrap for text of several lines: each line is wrapped on its
// own at width runes, its continuation lines indented, so that the line
// breaks the text has stay.
func Wrap(s string, width int, indent string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if utf8.RuneCountInString(l) > width {
			lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
			lines[i] = lead + wrap(l, width-len(lead), indent+lead)
		}
	}
	return strings.Join(lines, "\n")
}

// alignRight pads column col of rows on the left to a common width.
func alignRight(rows [][]string, col int) {
	width := 0
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r[col]))
	}
	for _, r := range rows {
		r[col] = strings.Repeat(" ", width-utf8.RuneCountInString(r[col])) + r[col]
	}
}

// table writes rows as columns two spaces apart (text/tabwriter), without
// trailing blanks, so that empty last cells leave no padding behind.
func table(w io.Writer, rows [][]string) error { return tableNotes(w, rows, nil) }

// tableNotes is table with, after row i, the line notes[i]: the columns
// stay aligned across the notes, which are not part of them.
func tableNotes(w io.Writer, rows [][]string, notes map[int]string) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	i := 0
	for line := range strings.Lines(b.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
		if note, ok := notes[i]; ok {
			if _, err := io.WriteString(w, note+"\n"); err != nil {
				return err
			}
		}
		i++
	}
	return nil
}

// fitTable returns rows without column col when the table would be wider
// than lineWidth (and wide is not set), each of its cells then said on a
// line under its row, after that row's other note, headed head:
// `  ↳ changed since baseline: model a → b`. A cell that is empty or
// none says nothing. With scope, a cell the row before had too, in the
// same scope (scope(i) of data row i), is not repeated: a target's model
// change is every row's of that target, said under the first; a prompt's
// edit is scoped to the prompt. It reports whether the column was moved.
func fitTable(rows [][]string, notes map[int]string, col int, head, none string, scope func(i int) string, wide bool) ([][]string, bool) {
	if wide || col < 0 || len(rows) == 0 || tableWidth(rows) <= lineWidth {
		return rows, false
	}
	arrow := strings.TrimSuffix(whyArrow, "why: ")
	indent := strings.Repeat(" ", utf8.RuneCountInString(arrow))
	prev, prevScope := "", ""
	out := make([][]string, len(rows))
	for i, r := range rows {
		if col >= len(r) {
			out[i] = r
			continue
		}
		out[i] = append(slices.Clip(r[:col]), r[col+1:]...)
		if i == 0 {
			continue
		}
		cell, sc := strings.TrimSpace(r[col]), ""
		if scope != nil {
			sc = scope(i - 1)
		}
		if cell != "" && cell != none && (scope == nil || cell != prev || sc != prevScope) {
			line := arrow + wrap(head+cell, lineWidth-utf8.RuneCountInString(arrow), indent)
			if n, ok := notes[i]; ok {
				line = n + "\n" + line
			}
			notes[i] = line
		}
		prev, prevScope = cell, sc
	}
	return out, true
}

// labelScope is the scope a check's labels hold for: its prompt when one
// of them is the prompt's own (edited, new), else its target.
func labelScope(c compare.Check) string {
	for _, l := range labelsOf(c) {
		if l == string(compare.ChangeEdited) || l == string(compare.ChangeNew) || strings.HasPrefix(l, string(compare.ChangeEdited)+":") {
			return targetOf(c) + "\x00" + promptOf(c) + "\x00" + strings.Join(c.Prompts, ",")
		}
	}
	return targetOf(c)
}

// tableWidth is the widest line table would write of rows.
func tableWidth(rows [][]string) int {
	var b strings.Builder
	_ = tableNotes(&b, rows, nil) // a strings.Builder does not fail
	w := 0
	for line := range strings.Lines(b.String()) {
		w = max(w, utf8.RuneCountInString(strings.TrimRight(line, "\n")))
	}
	return w
}

// fitChecks fits a verdict table of checks (one row each, after the
// header; labelled: its last column the labels) to lineWidth: the labels
// go onto lines under their rows first, headed head, then the verdicts'
// details (a verdict whose detail would take its row past lineWidth keeps
// the word in the row and says it whole on a line of its own), and last,
// when the table is still too wide, the target column (each target then
// heads its rows).
func fitChecks(rows [][]string, notes map[int]string, checks []compare.Check, labelled bool, head string, opts Options) [][]string {
	if labelled {
		var moved bool
		rows, moved = fitTable(rows, notes, len(rows[0])-1, head, "", func(i int) string { return labelScope(checks[i]) }, opts.Wide)
		labelled = !moved
	}
	if opts.Wide {
		return rows
	}
	col := len(rows[0]) - 1 // the verdict, or before the labels
	if labelled {
		col--
	}
	fitVerdicts(rows, notes, col, func(i int) string {
		if checks[i].Verdict == compare.Unbaselined {
			return "" // a new prompt's row: its word is all it says
		}
		return verdictWord(checks[i].Verdict, opts.Strict)
	})
	if len(rows) > 1 && rows[0][0] == "target" && tableWidth(rows) > lineWidth {
		rows = byTarget(rows, notes)
	}
	return rows
}

// byTarget returns rows without their first column, the target, each
// target said instead on a line of its own before its first row (rows
// come grouped by target): a table of several targets too wide for
// lineWidth gains the column's width and loses nothing.
func byTarget(rows [][]string, notes map[int]string) [][]string {
	out := make([][]string, len(rows))
	prev := ""
	for i, r := range rows {
		out[i] = r[1:]
		if i == 0 {
			continue
		}
		if t := strings.TrimSpace(r[0]); t != prev {
			line := "target " + t + ":"
			if n, ok := notes[i-1]; ok {
				line = n + "\n" + line
			}
			notes[i-1] = line
			prev = t
		}
	}
	return out
}

// fitVerdicts shortens to its word (word(i) of data row i) the verdict in
// column col of each row whose line would pass lineWidth, and says the
// verdict whole on a line of its own under the row, before its other notes.
func fitVerdicts(rows [][]string, notes map[int]string, col int, word func(i int) string) {
	var b strings.Builder
	_ = tableNotes(&b, rows, nil) // a strings.Builder does not fail
	i := 0
	for line := range strings.Lines(b.String()) {
		if i > 0 && i < len(rows) && col < len(rows[i]) && utf8.RuneCountInString(strings.TrimRight(line, "\n")) > lineWidth {
			if w := word(i - 1); w != "" && rows[i][col] != w {
				full := rows[i][col]
				rows[i][col] = w
				notes[i] = strings.TrimSuffix(whyArrow, "why: ") + full + prefixNote(notes[i])
			}
		}
		i++
	}
}
