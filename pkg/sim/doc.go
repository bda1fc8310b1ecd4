// Package sim owns latgate's simulated OpenAI-compatible endpoint: latency
// profiles (presets and spec strings), faults, a streaming
// POST /v1/chat/completions and GET /v1/models as an http.Handler, a real
// loopback server around it (Start, Serve), and an optional recorder of the
// server-side flush times that client measurements can be checked against.
//
// Requests to /v1/chat/completions are numbered from 1 in arrival order.
// Request n's chunks carry the id "chatcmpl-sim-<n>" (see SeqFromID), its
// delays are drawn from PCG(Profile.Seed, n) (see Profile.Plan), and every
// write is scheduled against absolute deadlines from its arrival, not
// cumulative sleeps, then flushed at once.
package sim
