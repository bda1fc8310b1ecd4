// Package sim owns latgate's simulated streaming endpoint: latency profiles
// (presets and spec strings), faults, and every API latgate measures, each
// with its real event sequence (see ServeHTTP): OpenAI Chat Completions
// (streamed or not) and GET /v1/models, the OpenAI Responses API, the
// Anthropic Messages API, Gemini's streamGenerateContent and an app's own
// event stream; as an http.Handler, a real loopback server around it
// (Start, Serve), and an optional recorder of the server-side flush times
// that client measurements can be checked against.
//
// Requests are numbered from 1 in arrival order, whatever their API.
// Request n's response id is "chatcmpl-sim-<n>" on chat (see SeqFromID for
// the others), its delays are drawn from PCG(Profile.Seed, n) (see
// Profile.Plan), and every write is scheduled against absolute deadlines
// from its arrival, not cumulative sleeps, then flushed at once.
package sim
