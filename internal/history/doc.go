// Package history owns latgate's run history (schema "latgate.history/v1"):
// a JSON Lines file with one compact record per run — when, at which commit,
// on which runner, with which latgate, what the endpoint said it was (models,
// system fingerprints), and per target × prompt × gateable metric the run's
// summary (n and every statistic a gate can check, stats.Named: P50, P90,
// P95, P99, mean; milliseconds), never the raw samples. It appends records
// atomically and keeps a bounded number of them. It reads a file as data:
// a malformed line, or a record holding a value no run can have measured,
// is reported with its line number and skipped (and kept in the file as it
// was); records are returned in time order whatever the file's order.
package history
