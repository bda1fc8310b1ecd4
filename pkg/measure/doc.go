// Package measure owns running a measurement: targets × prompts × requests,
// each streamed request turned into one results.Sample (times stamped on the
// monotonic clock as bytes are read from the socket, httptrace phases, token
// counts and their source) or one classified results.Failure. It returns
// values; progress goes to an Observer, never to a terminal.
//
// # Stability
//
// measure and compare are latgate's library face: a program can measure an
// endpoint with Run and gate two runs with compare.Compare without the
// CLI. Their exported API is what latgate promises; the other pkg/
// packages serve the commands and the files they read and write.
package measure
