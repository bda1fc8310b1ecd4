// Package compare owns the regression gate: baseline samples × current samples
// × gate config → verdicts. Its intervals are analytic and distribution-free
// (see interval.go), so it is pure and deterministic: no I/O, no printing,
// warnings are values.
//
// # Decision rule
//
// For each target × prompt × check the change current/baseline (the ratio of
// the statistics, or for p50 of a per-request metric the Hodges–Lehmann shift
// of log latency) gets an interval [Lo, Hi] with the day-to-day noise added
// (pool.go, daynoise.go), each end at its own level (Check.ends): the end
// that calls a regression (Lo of a duration) at the look's level of the
// gate's confidence, the end that calls ok or improved (Hi of a duration)
// at the look's level of gate.ok_confidence (90% one-sided by default; 0
// keeps both at the confidence, as limits, shares, ab and bless's drift
// check do). The tolerance allows a
// slowdown by the ratio
//
//	τ = 1 + max(Rel, Floor/baseline)
//
// so a change smaller than Floor is never a regression, however large in
// relative terms. The verdict is
//
//   - regressed when Lo > τ: the whole interval is beyond the tolerance;
//   - improved when Hi < 1/τ: the whole interval is beyond the symmetric
//     tolerance on the faster side (symmetric in log space);
//   - ok when Hi ≤ τ: a regression beyond the tolerance is ruled out;
//   - inconclusive otherwise (Lo ≤ τ < Hi: the interval straddles τ), or when
//     a side has too few values for the statistic at the look's two-sided
//     level (stats.Stat.Need: 6 for p50 and the mean, 36 for p90, 72 for p95
//     at 95%; for itl, pooled gaps against that rule and at least 10
//     requests per side).
//
// Each target's prompts are pooled into one check per gate check, which
// decides (Report.Aggregates); a prompt check regressed only when it is
// beyond its tolerance after Holm's adjustment over the target's prompt
// tests, and is otherwise a diagnostic (Check.Diagnostic) that never holds
// the run undecided. A check whose side reaches 0 ms is decided on the
// difference (Check.Scale).
//
// # Rates: higher is better
//
// tokens_per_s is a rate, for which a drop is the bad direction. Decide
// applies the same rule to the ratio baseline/current — the factor by which
// each token got slower — whose interval is [1/Hi, 1/Lo], so regressed is
// Hi < 1/τ (the rate fell beyond the tolerance), improved Lo > τ, ok
// Lo ≥ 1/τ. Check keeps Ratio, Lo and Hi as current/baseline, so a drop
// reads as a negative change, and stores Threshold as 1/τ, below which the
// check regressed. The floor of a rate is Tolerance.FloorRate in tokens/s:
//
//	τ = 1 + max(Rel, FloorRate/(baseline − FloorRate))
//
// (RateThreshold), so a drop smaller than FloorRate is never a regression.
// No timing resolution applies to a rate (Resolution is 0).
//
// Requiring the whole two-sided interval beyond τ is a one-sided test at
// (1+confidence)/2 against a margin, not against "no change", which is why
// an unchanged endpoint is almost never flagged (see matrix_test.go).
//
// # Rules beyond the five
//
// A program may add a gate rule of its own: a RuleDef in Setup.Rules makes
// and decides its own checks of both sides (RuleInput), which then count
// in the run's verdict and check's rounds like the config's (ExampleRuleDef;
// latgate's reports word them through internal/report's RuleWords).
//
// # Stability
//
// compare and measure are latgate's library face: what they export is what
// latgate promises to a program that gates two runs without the CLI.
package compare
