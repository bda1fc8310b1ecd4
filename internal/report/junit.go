package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/latgate/latgate/internal/cost"
	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// JUnit writes the comparison as JUnit XML: a <testsuites> root named
// "latgate", one <testsuite> per target named "latgate.<target>" (with
// "@region" when set) whose properties record the baseline, the results and
// the gate's settings, and one <testcase> per check and pooled check, named
// "<prompt> <metric> <stat>" ("all prompts (pooled) ttft p95" for a pooled
// check), classname the suite's name. A regression is a <failure> whose
// message is the one-line verdict, for example
//
//	ttft p95 +38% [CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms)
//
// and whose body has the details; an inconclusive check is <skipped> with the
// reason (a <failure> under opts.Strict).
//
// Times are wall times (opts.Wall): a testcase's is the time spent measuring
// its prompt (an aggregate's, its target's), a suite's its target's, the
// root's the whole run's. Each testcase also carries the statistic and its
// interval as properties (latgate.baseline_ms, latgate.current_ms,
// latgate.ratio, latgate.ci_low, latgate.ci_high, latgate.threshold,
// latgate.verdict, …), so a reader sees the figures of passing checks too.
// The document starts with an XML declaration.
//
// The layout suits the three common GitHub readers (read from their parsers):
//   - dorny/test-reporter (java-junit) needs testsuite name and time and
//     testcase name, classname and time; it groups a suite's cases by
//     classname unless the classname equals the suite name, hence the
//     shared name; <failure message> with its body, and any <skipped>, map
//     to failed and skipped.
//   - mikepenz/action-junit-report counts the testcases itself; a failure's
//     message attribute becomes its annotation and the body the raw details;
//     with no file attribute (go-junit-report's Testcase has none) it takes
//     the file name from the classname's last dot-separated part.
//   - EnricoMi/publish-unit-test-result-action (junitparser) takes counts and
//     time from each testsuite's attributes and tracks a test across runs by
//     classname and name, so names carry no numbers.
//
// The report's warnings (failed requests left out of the samples, 429
// retries, checks that could not be resolved) go in each suite's
// <system-out>, one "warning: " line each.
func JUnit(w io.Writer, rep compare.Report, opts Options) error {
	all := ordered(rep)
	root := xmlSuites{Testsuites: junit.Testsuites{Name: "latgate"}}
	for i, target := range targets(append(all, rep.New...)) {
		suite := xmlSuite{Testsuite: junit.Testsuite{Name: "latgate." + target, ID: i, Time: seconds(opts.Wall.targetKey(target))}}
		if opts.BaselinePath != "" {
			suite.AddProperty("latgate.baseline", opts.BaselinePath)
		}
		if opts.Blessed != "" {
			suite.AddProperty("latgate.baseline.blessed", opts.Blessed)
		}
		if opts.Results != "" {
			suite.AddProperty("latgate.results", opts.Results)
		}
		suite.AddProperty("latgate.confidence", strconv.FormatFloat(rep.Confidence, 'g', -1, 64))
		if rep.OkConfidence > 0 {
			suite.AddProperty("latgate.ok_confidence", strconv.FormatFloat(rep.OkConfidence, 'g', -1, 64))
		}
		suite.AddProperty("latgate.resamples", strconv.Itoa(rep.Resamples))
		suite.AddProperty("latgate.seed", strconv.FormatInt(rep.Seed, 10))
		suite.AddProperty("latgate.strict", strconv.FormatBool(opts.Strict))
		for _, ch := range rep.Changes {
			suite.AddProperty("latgate.changed", ChangeMessage(ch))
		}
		costProperties(&suite, target, opts.Cost)
		add := func(tc junit.Testcase, c compare.Check) {
			suite.AddTestcase(tc) // counts it
			suite.Cases = append(suite.Cases, xmlCase{Testcase: tc, Properties: caseProperties(c)})
		}
		for _, c := range all {
			if targetOf(c) != target {
				continue
			}
			tc := junit.Testcase{
				Name:      promptOf(c) + " " + checkOf(c),
				Classname: suite.Name,
				Time:      seconds(opts.Wall.prompt(c)),
			}
			msg := message(c)
			if len(c.Changed) > 0 {
				msg += " [changed since baseline: " + labels(c) + "]"
			}
			if line, ok := attribution(c); ok {
				msg += " — why: " + line
			}
			switch {
			case c.Verdict == compare.Regressed:
				tc.Failure = &junit.Result{Message: msg, Type: "regression", Data: xmlText(detail(c, rep.Confidence))}
			case c.Verdict.Fails(opts.Strict):
				tc.Failure = &junit.Result{Message: "inconclusive (strict): " + msg, Type: "inconclusive", Data: xmlText(detail(c, rep.Confidence))}
			case c.Verdict == compare.Inconclusive:
				tc.Skipped = &junit.Result{Message: "inconclusive: " + msg, Data: xmlText(detail(c, rep.Confidence))}
			case len(c.Changed) > 0:
				tc.SystemOut = &junit.Output{Data: xmlText("changed since baseline: " + labels(c))}
			}
			add(tc, c)
		}
		for _, c := range rep.New {
			if targetOf(c) == target {
				add(junit.Testcase{Name: c.Prompt + " " + checkOf(c), Classname: suite.Name, Time: seconds(opts.Wall.prompt(c)),
					Skipped: &junit.Result{Message: fmt.Sprintf("%s: %s from %d requests; %s", newWord, sideValue(c, c.Current, c.NCur), c.NCur, Summary(c))}}, c)
			}
		}
		suite.Testcases = nil // written as Cases, with their properties
		var out []string
		for _, ch := range rep.Changes {
			out = append(out, "changed since baseline: "+ChangeMessage(ch))
		}
		for _, w := range Warnings(rep) {
			out = append(out, "warning: "+w)
		}
		if len(out) > 0 {
			suite.Out = &junit.Output{Data: xmlText(strings.Join(out, "\n"))}
		}
		root.AddSuite(suite.Testsuite) // counts it
		root.Suites = append(root.Suites, suite)
	}
	root.Testsuites.Suites = nil
	root.Time = seconds(0)
	if opts.Wall != nil {
		root.Time = seconds(opts.Wall.Run)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "\t")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// xmlSuites, xmlSuite and xmlCase are go-junit-report's elements with
// properties on each testcase, which its Testcase lacks (the fields below
// shadow the embedded lists they replace).
type xmlSuites struct {
	junit.Testsuites
	Suites []xmlSuite `xml:"testsuite,omitempty"`
}

type xmlSuite struct {
	junit.Testsuite
	Cases []xmlCase     `xml:"testcase,omitempty"`
	Out   *junit.Output `xml:"system-out,omitempty"` // after the cases, as before
}

// xmlCase puts the properties first, as pytest's record_property does.
type xmlCase struct {
	Properties *[]junit.Property `xml:"properties>property,omitempty"`
	junit.Testcase
}

// caseProperties are a check's figures: the statistic on each side, the
// change and its interval, the threshold, and the sample sizes.
func caseProperties(c compare.Check) *[]junit.Property {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	props := []junit.Property{
		{Name: "latgate.metric", Value: c.Metric},
		{Name: "latgate.stat", Value: c.Stat},
		{Name: "latgate.verdict", Value: string(c.Verdict)},
	}
	if w, ok := ruleWords(c); ok { // a rule beyond the five: its figures, in its words' units
		props = append(props, junit.Property{Name: "latgate.rule", Value: string(c.Rule())})
		if c.NBase > 0 {
			props = append(props, junit.Property{Name: "latgate.baseline", Value: f(c.Baseline)})
		}
		if c.NCur > 0 {
			props = append(props, junit.Property{Name: "latgate.current", Value: f(c.Current)},
				junit.Property{Name: "latgate.change", Value: w.Change(c)})
		}
		if c.Lo != 0 || c.Hi != 0 {
			props = append(props, junit.Property{Name: "latgate.ci_low", Value: f(c.Lo)},
				junit.Property{Name: "latgate.ci_high", Value: f(c.Hi)},
				junit.Property{Name: "latgate.confidence", Value: f(c.Confidence)})
		}
		props = append(props, junit.Property{Name: "latgate.allowed", Value: w.Allowed(c)},
			junit.Property{Name: "latgate.n_baseline", Value: strconv.Itoa(c.NBase)},
			junit.Property{Name: "latgate.n_current", Value: strconv.Itoa(c.NCur)})
		return &props
	}
	if c.IsShare() { // shares, not milliseconds; the interval is of points or of the share
		if c.NBase > 0 {
			props = append(props, junit.Property{Name: "latgate.baseline_share", Value: f(round4(c.Baseline))})
		}
		if c.NCur > 0 {
			props = append(props, junit.Property{Name: "latgate.current_share", Value: f(round4(c.Current))})
		}
		if c.Lo != 0 || c.Hi != 0 {
			props = append(props, junit.Property{Name: "latgate.ci_low", Value: f(round4(c.Lo))},
				junit.Property{Name: "latgate.ci_high", Value: f(round4(c.Hi))},
				junit.Property{Name: "latgate.confidence", Value: f(c.Confidence)})
		}
		if isFloor(c) {
			props = append(props, junit.Property{Name: "latgate.min_share", Value: f(c.Min)})
		} else {
			props = append(props, junit.Property{Name: "latgate.tolerance_points", Value: f(round4(c.Tolerance.Rel))})
		}
		if line, ok := attribution(c); ok {
			props = append(props, junit.Property{Name: "latgate.why", Value: line})
		}
		props = append(props,
			junit.Property{Name: "latgate.n_baseline", Value: strconv.Itoa(c.NBase)},
			junit.Property{Name: "latgate.n_current", Value: strconv.Itoa(c.NCur)})
		return &props
	}
	if c.NBase > 0 {
		props = append(props, junit.Property{Name: "latgate.baseline_ms", Value: f(round3(c.Baseline))})
	}
	if c.NCur > 0 {
		props = append(props, junit.Property{Name: "latgate.current_ms", Value: f(round3(c.Current))})
	}
	if c.Ratio > 0 {
		props = append(props,
			junit.Property{Name: "latgate.change", Value: numfmt.Pct(c.Ratio)},
			junit.Property{Name: "latgate.ratio", Value: f(round4(c.Ratio))},
			junit.Property{Name: "latgate.ci_low", Value: f(round4(c.Lo))},
			junit.Property{Name: "latgate.ci_high", Value: f(round4(c.Hi))},
			junit.Property{Name: "latgate.confidence", Value: f(c.Confidence)})
	}
	if c.Threshold > 0 {
		props = append(props, junit.Property{Name: "latgate.threshold", Value: f(round4(c.Threshold))})
	}
	if isLimit(c) {
		props = append(props, junit.Property{Name: "latgate.max_ms", Value: f(round3(c.Max))})
		if c.Lo != 0 || c.Hi != 0 {
			props = append(props,
				junit.Property{Name: "latgate.ci_low_ms", Value: f(round3(c.Lo))},
				junit.Property{Name: "latgate.ci_high_ms", Value: f(round3(c.Hi))},
				junit.Property{Name: "latgate.confidence", Value: f(c.Confidence)})
		}
	}
	if line, ok := attribution(c); ok {
		props = append(props, junit.Property{Name: "latgate.why", Value: line})
	}
	props = append(props,
		junit.Property{Name: "latgate.n_baseline", Value: strconv.Itoa(c.NBase)},
		junit.Property{Name: "latgate.n_current", Value: strconv.Itoa(c.NCur)})
	return &props
}

func round3(v float64) float64 { return math.Round(v*1e3) / 1e3 }
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// seconds formats a duration in seconds as JUnit does, to the millisecond.
func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// detail is the body of a failure or skip: the numbers behind the verdict.
func detail(c compare.Check, conf float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", whereOf(c), c.Verdict)
	if isAggregate(c) {
		fmt.Fprintf(&b, "pooled:     prompts %s\n", strings.Join(c.Prompts, ", "))
	}
	if w, ok := ruleWords(c); ok { // a rule beyond the five, in its own words
		fmt.Fprintf(&b, "rule:       %s\n", c.Rule())
		if !c.Absolute() {
			fmt.Fprintf(&b, "baseline:   %s from %d requests\n", sideValue(c, c.Baseline, c.NBase), c.NBase)
		}
		fmt.Fprintf(&b, "current:    %s from %d requests\n", sideValue(c, c.Current, c.NCur), c.NCur)
		fmt.Fprintf(&b, "change:     %s, allowed %s\n", rulePhrase(w, c), w.Allowed(c))
		fmt.Fprintf(&b, "reason:     %s", w.Summary(c))
		return b.String()
	}
	switch {
	case isFloor(c):
		fmt.Fprintf(&b, "limit:      min %s of requests (absolute: the current run alone, no baseline)\n", sharePercent(c.Min))
	case isLimit(c):
		fmt.Fprintf(&b, "limit:      %s %s (absolute: the current run alone, no baseline)\n", c.Stat, limitOf(c))
	default:
		fmt.Fprintf(&b, "baseline:   %s\n", side(c.Baseline, c.NBase, c.GapsBase, c.Metric))
	}
	fmt.Fprintf(&b, "current:    %s\n", side(c.Current, c.NCur, c.GapsCur, c.Metric))
	if c.Ratio > 0 {
		if c.OkConfidence > 0 {
			fmt.Fprintf(&b, "change:     %s (ratio %.3f), CI %s (%s sure at the regression end, %s at the ok end)\n",
				numfmt.Pct(c.Ratio), c.Ratio, interval(c), confPct((1+c.Confidence)/2), confPct(c.OkConfidence))
		} else {
			fmt.Fprintf(&b, "change:     %s (ratio %.3f), %s CI %s\n", numfmt.Pct(c.Ratio), c.Ratio, confPct(conf), interval(c))
		}
	}
	if c.IsShare() && (c.Lo != 0 || c.Hi != 0) {
		what := "of current − baseline"
		if isFloor(c) {
			what = "of the share"
		} else {
			fmt.Fprintf(&b, "change:     %s, tolerance %s\n", change(c), tolerance(c))
		}
		fmt.Fprintf(&b, "interval:   %s CI %s %s\n", confPct(conf), interval(c), what)
	}
	if isLimit(c) && (c.Lo != 0 || c.Hi != 0) {
		fmt.Fprintf(&b, "interval:   %s CI %s of %s\n", confPct(conf), interval(c), c.Stat)
	}
	switch {
	case c.Threshold > 0 && results.HigherIsBetter(c.Metric):
		fmt.Fprintf(&b, "threshold:  %s (ratio %.3f, higher is better): 1/max(tolerance %s, floor %g tokens/s)\n",
			numfmt.Pct(c.Threshold), c.Threshold, numfmt.Pct(1+c.Tolerance.Rel), c.Tolerance.FloorRate)
	case c.Threshold > 0:
		fmt.Fprintf(&b, "threshold:  %s (ratio %.3f): max(tolerance %s, floor %g ms)\n",
			numfmt.Pct(c.Threshold), c.Threshold, numfmt.Pct(1+c.Tolerance.Rel), floorMS(c))
	}
	need := fmt.Sprintf("%d requests", c.Need)
	if c.Metric == results.ITL {
		need = fmt.Sprintf("%d gaps and %d requests", c.Need, c.NeedRequests)
	}
	perSide := " per side"
	if isLimit(c) || isFloor(c) {
		perSide = ""
	}
	fmt.Fprintf(&b, "needs:      %s%s for %s\n", need, perSide, c.Stat)
	fmt.Fprintf(&b, "reason:     %s", Summary(c))
	if line, ok := attribution(c); ok {
		fmt.Fprintf(&b, "\nwhy:        %s", line)
	}
	return b.String()
}

// side describes one side's statistic and sample size.
func side(ms float64, n, gaps int, metric string) string {
	if n == 0 {
		return "no values"
	}
	s := fmt.Sprintf("%s from %d requests", value(metric, ms, n), n)
	if metric == results.ITL {
		s += fmt.Sprintf(" (%d gaps)", gaps)
	}
	return s
}

// xmlText makes text written as character data (<failure>, <skipped>,
// <system-out>) valid XML 1.0: encoding/xml escapes attributes but writes
// CDATA as it is, and a control character from a baseline or history file
// (an ESC in a hand-edited model name) would make the whole report
// unparsable to every JUnit publisher. Such characters become U+FFFD, as
// encoding/xml does in attributes.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

// costProperties give a priced target's cost (internal/cost) to tools:
// latgate.cost_usd (absent when unknown), latgate.cost_requests and
// latgate.cost_unknown_requests, and latgate.rounds_cost_usd when the
// gate's rounds added some.
func costProperties(suite *xmlSuite, target string, b cost.Bill) {
	for _, t := range b.Targets {
		if t.Name != target {
			continue
		}
		usd := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
		if t.Recorded && t.All.Known() {
			suite.AddProperty("latgate.cost_usd", usd(t.All.USD))
		}
		suite.AddProperty("latgate.cost_requests", strconv.Itoa(t.All.Requests))
		suite.AddProperty("latgate.cost_unknown_requests", strconv.Itoa(t.All.Unknown))
		if t.Rounds.Known() {
			suite.AddProperty("latgate.rounds_cost_usd", usd(t.Rounds.USD))
		}
	}
}
