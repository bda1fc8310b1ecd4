package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// JUnit writes the comparison as JUnit XML: a <testsuites> root named
// "latgate", one <testsuite> per target named "latgate.<target>" (with
// "@region" when set) whose properties record the baseline, the results and
// the bootstrap settings, and one <testcase> per check and aggregate, named
// "<prompt> <metric> <stat>" ("all prompts (geomean) ttft p95" for an
// aggregate), classname the suite's name. A regression is a <failure> whose
// message is the one-line verdict, for example
//
//	ttft p95 +38% [95% CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms)
//
// and whose body has the details; an inconclusive check is <skipped> with the
// reason (a <failure> under opts.Strict).
//
// A testcase's time is the current value of its statistic in seconds: reports
// show time as a duration, and the measured latency is the one duration a
// check has (its own run time is meaningless); a suite's time is the sum of
// its cases', as JUnit defines it.
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
	suites := junit.Testsuites{Name: "latgate"}
	var total float64
	for i, target := range targets(append(all, rep.New...)) {
		suite := junit.Testsuite{Name: "latgate." + target, ID: i}
		if opts.BaselinePath != "" {
			suite.AddProperty("latgate.baseline", opts.BaselinePath)
		}
		if opts.Results != "" {
			suite.AddProperty("latgate.results", opts.Results)
		}
		suite.AddProperty("latgate.confidence", strconv.FormatFloat(rep.Confidence, 'g', -1, 64))
		suite.AddProperty("latgate.resamples", strconv.Itoa(rep.Resamples))
		suite.AddProperty("latgate.seed", strconv.FormatInt(rep.Seed, 10))
		suite.AddProperty("latgate.strict", strconv.FormatBool(opts.Strict))
		for _, ch := range rep.Changes {
			suite.AddProperty("latgate.changed", ch.Message())
		}
		var secs float64
		for _, c := range all {
			if targetOf(c) != target {
				continue
			}
			tc := junit.Testcase{
				Name:      promptOf(c) + " " + checkOf(c),
				Classname: suite.Name,
				Time:      seconds(c.Current / 1000),
			}
			if c.NCur > 0 {
				secs += c.Current / 1000
			}
			msg := message(c)
			if len(c.Labels) > 0 {
				msg += " [changed since baseline: " + labels(c) + "]"
			}
			switch {
			case c.Verdict == compare.Regressed:
				tc.Failure = &junit.Result{Message: msg, Type: "regression", Data: detail(c, rep.Confidence)}
			case c.Verdict.Fails(opts.Strict):
				tc.Failure = &junit.Result{Message: "inconclusive (strict): " + msg, Type: "inconclusive", Data: detail(c, rep.Confidence)}
			case c.Verdict == compare.Inconclusive:
				tc.Skipped = &junit.Result{Message: "inconclusive: " + msg, Data: detail(c, rep.Confidence)}
			case len(c.Labels) > 0:
				tc.SystemOut = &junit.Output{Data: "changed since baseline: " + labels(c)}
			}
			if c.NCur == 0 {
				tc.Time = seconds(0)
			}
			suite.AddTestcase(tc)
		}
		for _, c := range rep.New {
			if targetOf(c) == target {
				suite.AddTestcase(junit.Testcase{Name: c.Prompt + " " + checkOf(c), Classname: suite.Name, Time: seconds(0),
					Skipped: &junit.Result{Message: fmt.Sprintf("%s: %s from %d requests; %s", newWord, value(c.Current, c.NCur), c.NCur, reason(c))}})
			}
		}
		suite.Time = seconds(secs)
		var out []string
		for _, ch := range rep.Changes {
			out = append(out, "changed since baseline: "+ch.Message())
		}
		for _, w := range rep.Warnings {
			out = append(out, "warning: "+w)
		}
		if len(out) > 0 {
			suite.SystemOut = &junit.Output{Data: strings.Join(out, "\n")}
		}
		total += secs
		suites.AddSuite(suite)
	}
	suites.Time = seconds(total)
	if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"); err != nil {
		return err
	}
	return suites.WriteXML(w)
}

// seconds formats a duration in seconds as JUnit does, to the millisecond.
func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// detail is the body of a failure or skip: the numbers behind the verdict.
func detail(c compare.Check, conf float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", whereOf(c), c.Verdict)
	if isAggregate(c) {
		fmt.Fprintf(&b, "aggregate:  geometric mean over prompts %s\n", strings.Join(c.Prompts, ", "))
	}
	fmt.Fprintf(&b, "baseline:   %s\n", side(c.Baseline, c.NBase, c.GapsBase, c.Metric))
	fmt.Fprintf(&b, "current:    %s\n", side(c.Current, c.NCur, c.GapsCur, c.Metric))
	if c.Ratio > 0 {
		fmt.Fprintf(&b, "change:     %s (ratio %.3f), %s CI %s\n", compare.Pct(c.Ratio), c.Ratio, confPct(conf), interval(c))
	}
	if c.Threshold > 0 {
		fmt.Fprintf(&b, "threshold:  %s (ratio %.3f): max(tolerance %s, floor %g ms)\n",
			compare.Pct(c.Threshold), c.Threshold, compare.Pct(1+c.Tolerance.Rel), floorMS(c))
	}
	need := fmt.Sprintf("%d requests", c.Need)
	if c.Metric == results.ITL {
		need = fmt.Sprintf("%d gaps and %d requests", c.Need, c.NeedRequests)
	}
	fmt.Fprintf(&b, "needs:      %s per side for %s\n", need, c.Stat)
	fmt.Fprintf(&b, "reason:     %s", reason(c))
	return b.String()
}

// side describes one side's statistic and sample size.
func side(ms float64, n, gaps int, metric string) string {
	if n == 0 {
		return "no values"
	}
	s := fmt.Sprintf("%s from %d requests", Millis(ms), n)
	if metric == results.ITL {
		s += fmt.Sprintf(" (%d gaps)", gaps)
	}
	return s
}
