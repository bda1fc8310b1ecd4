// Package stats owns the pure statistics latgate reports: the percentile
// estimator (Hyndman–Fan type 7, the default of R and NumPy), summaries and
// helpers. No I/O; functions never modify their inputs unless they say so.
package stats
