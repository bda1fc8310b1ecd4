// Command latgate is a CI latency regression gate for OpenAI-compatible
// streaming endpoints.
package main

func main() {}
