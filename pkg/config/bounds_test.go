package config

import (
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

// TestRequestBoundsAreOne: every count of requests per target × prompt a
// config asks for — run.requests, check's round cap, what bless measures,
// set or defaulted — is within the one bound results files are read with,
// so that no run latgate accepts writes a file it would then refuse.
func TestRequestBoundsAreOne(t *testing.T) {
	const most = results.MaxPromptRequests
	for _, r := range []Run{
		{Requests: most},
		{Requests: most, MaxRequests: most, BlessRequests: most},
		{Requests: 60},
	} {
		if r.Cap() > most || r.BlessN() > most {
			t.Errorf("%+v: Cap %d, BlessN %d; want both at most %d", r, r.Cap(), r.BlessN(), most)
		}
	}
	for _, field := range []string{"requests", "max_requests", "bless_requests"} {
		src := "targets: [{name: t, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\nrun: {" + field + ": 100001}\n"
		if _, err := Parse([]byte(src), "latgate.yaml", Options{}); err == nil {
			t.Errorf("run.%s: 100001 accepted; want it refused like run.requests", field)
		}
	}
}
