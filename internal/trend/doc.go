// Package trend owns the nightly analysis of latgate's run history: per
// target × prompt × gated check, the change points of the series (E-divisive
// means, both ends of a split searched, each split tested against the
// series' own noise), each with its date, commit and size with an interval;
// the noise itself (around the segment levels, AR(1) autocorrelation
// allowed); the drift of the recent runs from the blessed baseline and from
// the series' level at the bless; and a verdict, decided on intervals with
// the false-alarm rate controlled across every series of a night
// (Benjamini–Hochberg) and, for each change, across the nights after it. It
// also proposes tolerances from the noise (Tune) for a false-alarm rate per
// run (the gate learns its day-to-day noise itself: compare.LearnDayNoise). It is
// pure and deterministic: history records and a spec in, values out;
// warnings are values, and only report writers print.
//
// It also owns what the analysis is of and what it says of a regression:
// the spec a config's gate follows (SpecFor), the key that names a
// regression from night to night (IssueKey), and the provenance of a
// baseline, a record or a results file (OfBaseline, OfRecord, OfResults)
// that the staleness warnings compare.
package trend
