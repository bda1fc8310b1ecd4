// Package diagnose says why a check moved, from the evidence latgate
// recorded and nothing else: which per-request quantities moved with a
// regression, and by how much (Attribute). It is pure: samples in, causes
// out, no I/O; text from the endpoint (model names, fingerprints) is
// sanitised before it enters a cause.
//
// # What "moved" means
//
// A difference is not a movement: two runs of the same endpoint never
// record the same numbers. A quantity moved only when both hold:
//
//   - beyond noise: for a per-request quantity (prompt tokens, TTFB, DNS,
//     connect, TLS, output tokens), the distribution-free 99.5% interval
//     of the Hodges–Lehmann shift (current − baseline, from the
//     Mann–Whitney rank bound, found without forming the pairs) excludes
//     0; for the
//     cached share of prompt tokens, often all-or-nothing per request,
//     Welch's z on its mean; for a share of requests (connections reused,
//     HTTP 429, failures), a two-proportion z-test; all at that level. With at most ten
//     quantities per regression, the chance that noise alone names one is
//     at most 5% (Bonferroni; TestAttributionCalibration measures it);
//   - big enough to matter (Materiality): prompt and output tokens by 10%,
//     the cached share by 10 points, a network phase by 1 ms and by a tenth
//     of the metric's own shift, a share of requests by 2 points (reuse by
//     10).
//
// A side with fewer than MinRequests requests tests nothing. Returned
// models move when the sets differ; system fingerprints only when no
// fingerprint is common to both sides (providers rotate several).
//
// The wait before the first byte (queueing) is a cause of a TTFT, TTFCT or
// total regression when TTFB moved by at least half of the metric's own
// shift: the time went by before the server answered at all. Of a chain
// metric (chain_total, chain_ttft_last), the step whose own total moved
// most is named first when it moved by at least half of the metric's
// shift. A regression
// with none of these is "no recorded cause moved": the time is in the
// model, or somewhere latgate does not see.
package diagnose
