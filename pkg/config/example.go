package config

import _ "embed"

//go:embed example.yaml
var example string

// Example returns a commented example latgate.yaml that measures the built-in
// simulator; `latgate init` writes it. Each call returns a fresh copy.
func Example() []byte { return []byte(example) }
