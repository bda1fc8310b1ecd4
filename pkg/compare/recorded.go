package compare

import (
	"encoding/json"
	"fmt"

	"github.com/latgate/latgate/pkg/results"
)

// Recorded is a results file together with the comparison made of it: what
// `latgate check --out` writes. Its JSON is the results file's with a
// "comparison" object (the Report) at the end, so results.Read reads it as a
// plain results file and DecodeRecorded reads both. The type lives here, not
// in results, because compare imports results.
type Recorded struct {
	*results.File
	Comparison *Report `json:"comparison,omitempty"`
}

// DecodeRecorded decodes a results file (by results.Decode, with its checks
// and errors) and the comparison it carries, nil when it has none; name is
// the file name used in errors.
func DecodeRecorded(data []byte, name string) (*Recorded, error) {
	f, err := results.Decode(data, name)
	if err != nil {
		return nil, err
	}
	var c struct {
		Comparison *Report `json:"comparison"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: the comparison cannot be read: %w", name, err)
	}
	return &Recorded{File: f, Comparison: c.Comparison}, nil
}
