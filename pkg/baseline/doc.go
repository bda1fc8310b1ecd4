// Package baseline owns the committed baseline file (schema
// "latgate.baseline/v1", latgate.baseline.json): the raw samples and summaries
// a run was blessed with, with their provenance; its deterministic, diff-friendly
// encoding; strict decoding with errors that say how to fix the file; atomic
// writes; and the changes between two baselines that `bless` reports.
package baseline
