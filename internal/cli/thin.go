package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
)

// refuseThin refuses (exit 2) a baseline too thin to gate, by the rule of
// compare.CannotGate: a prompt with fewer samples than any check needs would
// make its checks inconclusive, a silent pass, whatever the run measured.
func refuseThin(path string, base *baseline.File, gate config.Gate) error {
	bad := compare.CannotGate(side(base.Run, base.Targets), gate)
	if len(bad) == 0 {
		return nil
	}
	return usageErr(errors.New(path + ": the baseline cannot gate: " + strings.Join(bad, "; ") +
		": re-create it with `latgate bless` and enough run.requests"))
}

// refuseUngateable refuses (even with --force) a baseline that check would
// refuse: values no run can have (results.ValidateData) or too few samples
// to gate (compare.CannotGate). A measurement failure keeps its exit code 3.
func refuseUngateable(b *baseline.File, gate config.Gate, path string, merr error) error {
	var problems []string
	if _, err := baseline.Decode(mustEncode(b), path); err != nil {
		problems = append(problems, err.Error())
	} else {
		problems = append(problems, compare.CannotGate(side(b.Run, b.Targets), gate)...)
	}
	if len(problems) == 0 {
		return nil
	}
	err := fmt.Errorf("refusing to bless, even with --force: %s; the baseline %s is unchanged", strings.Join(problems, "; "), path)
	if merr != nil {
		return measurementErr(fmt.Errorf("%w (%v)", err, merr))
	}
	return usageErr(err)
}

func mustEncode(b *baseline.File) []byte {
	data, err := baseline.Encode(b)
	if err != nil {
		return nil // Decode then says what is wrong
	}
	return data
}
