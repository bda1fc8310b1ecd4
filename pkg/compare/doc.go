// Package compare owns the regression gate: baseline samples × current samples
// × gate config → verdicts. It decides with a seeded bootstrap of whole
// requests, so it is pure and deterministic: no I/O, no printing, warnings
// are values.
//
// # Decision rule
//
// For each target × prompt × check the statistic (p50, p95, p99 or mean) is
// computed on each side and R bootstrap replicates of the ratio
// current/baseline give an equal-tailed interval [Lo, Hi] at the gate's
// confidence. The tolerance allows a slowdown by the ratio
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
//     a side has too few requests for the statistic (stats.MinSamples: 5 for
//     p50 and the mean, 59 for p95, 299 for p99 at 95%; for itl, pooled gaps
//     against that rule and at least 10 requests per side).
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
// an unchanged endpoint is almost never flagged (see calibration_test.go).
//
// # Aggregates
//
// With Gate.Aggregate, each target × check also gets an aggregate over the
// prompts measured on both sides (at least two): the geometric mean of the
// per-prompt ratios, whose interval comes from the same replicates (replicate
// r of the aggregate is the geometric mean of replicate r of each prompt).
// Its baseline and current are the geometric means of the per-prompt
// statistics, its tolerance the check's own (overrides are per prompt), and
// its sample-size rule applies to the request counts summed over prompts.
//
// # Stability
//
// compare and measure are latgate's library face: what they export is what
// latgate promises to a program that gates two runs without the CLI.
package compare
