// Package results owns the results file (schema "latgate.results/v1"): the raw
// per-request samples of one run, their summaries, and run provenance, with
// JSON read and write. Durations are milliseconds in every file field (*_ms).
package results
