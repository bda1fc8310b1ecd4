// Package config owns the latgate.yaml schema: strict decoding with file:line
// errors, defaults, validation, prompt loading (messages_file) and the
// canonical prompt and config hashes used to match a baseline.
package config
