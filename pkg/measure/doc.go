// Package measure owns running a measurement: targets × prompts × requests,
// each streamed request turned into one results.Sample (times stamped on the
// monotonic clock as bytes are read from the socket, httptrace phases, token
// counts and their source) or one classified results.Failure. It returns
// values; progress goes to an Observer, never to a terminal.
//
// Each API it speaks is one wire row (proto.go): the path, the key header,
// the request body, the error shape, the event parser and how the stream
// ends. Everything else, the one post that sends every API's requests, the
// stamps, the read loop and the classification of failures, is shared.
//
// # Stability
//
// measure and compare are latgate's library face: a program can measure an
// endpoint with Run and gate two runs with compare.Compare without the
// CLI. Their exported API is what latgate promises; the other pkg/
// packages serve the commands and the files they read and write.
package measure
