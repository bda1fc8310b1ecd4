// Package trend owns the nightly analysis of latgate's run history: per
// target × prompt × gated check, the change points of the series (E-divisive
// means with a seeded permutation test), each with its date, commit and size
// with an interval; the drift of the recent runs from the blessed baseline;
// and a verdict. It is pure: history records and a spec in, values out;
// warnings are values, and only report writers print.
//
// It also owns what the analysis is of and what it says of a regression:
// the spec a config's gate follows (SpecFor), the key that names a
// regression from night to night (IssueKey), and the provenance of a
// baseline, a record or a results file (OfBaseline, OfRecord, OfResults)
// that the staleness warnings compare.
package trend
