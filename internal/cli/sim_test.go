package cli

import (
	"strings"
	"testing"
)

func TestSimRejectsBadProfile(t *testing.T) {
	t.Parallel()
	code, _, errs := run(t, nil, "sim", "--addr", "127.0.0.1:0", "--profile", "default?nosuchkey=1")
	if code != ExitUsage || !strings.Contains(errs, "nosuchkey") {
		t.Errorf("exit %d, stderr %q; want 2 naming the key", code, errs)
	}
}
