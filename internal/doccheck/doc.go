// Package doccheck holds the tests that keep README.md and docs/ true to the
// code: every relative link and #anchor resolves, README.md stays short
// (at most 300 lines), and docs/commands.md is the real --help text of every
// command, rendered through the app's entry point (cli.Main).
//
// When the help text changes, regenerate the reference with
//
//	go generate ./internal/doccheck
//
// (or go test ./internal/doccheck -run TestCommandsReference -update).
package doccheck

//go:generate go test -run TestCommandsReference -update .
