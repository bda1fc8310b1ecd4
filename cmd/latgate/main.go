// Command latgate is a CI latency regression gate for OpenAI-compatible
// streaming endpoints. See README.md, or run latgate --help.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/latgate/latgate/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }() // a second Ctrl-C kills a stuck shutdown
	fi, err := os.Stderr.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	code := cli.Main(ctx, os.Args, cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, StderrIsTerminal: tty})
	stop()
	os.Exit(code)
}
