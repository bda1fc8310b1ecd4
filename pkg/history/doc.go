// Package history owns latgate's run history (schema "latgate.history/v1"):
// a JSON Lines file with one compact record per run — when, at which commit,
// on which runner, with which latgate, what the endpoint said it was (models,
// system fingerprints), and per target × prompt × metric the run's summary
// (n, P50, P95, P99, mean in milliseconds), never the raw samples. It appends
// records atomically, keeps a bounded number of them, and reads a file with
// malformed lines by reporting each (with its line number) and skipping it.
package history
