// Package stats owns the pure statistics latgate decides with, free of
// latgate's own types: the percentile estimator (Hyndman–Fan type 7, the
// default of R and NumPy) and summaries; the normal, Student's t and χ²
// distributions; the Hodges–Lehmann estimators with their distribution-free
// intervals (Moses' two-sample interval, the Wilcoxon signed-rank interval).
// No I/O; functions never modify their inputs unless they say so.
//
// The gate (pkg/compare), the nightly analysis (internal/trend) and the
// attribution of a regression (internal/diagnose) call these rather than keep
// copies: a new statistic belongs here.
package stats
