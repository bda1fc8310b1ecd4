package results

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFirstFailuresAndEndpointSaid(t *testing.T) {
	tg := Target{Prompts: []Prompt{
		{ID: "a", Failures: []Failure{
			{Seq: 3, Class: ErrServer, Message: "HTTP 500: overloaded"},
			{Seq: 5, Class: ErrServer, Message: "HTTP 500: overloaded"},
			{Seq: 9, Class: ErrServer, Message: "HTTP 503: down"},
			{Seq: 11, Class: ErrServer, Message: "HTTP 502: third distinct"},
		}},
		{ID: "b", Failures: []Failure{
			{Seq: 2, Class: ErrHTTP, Message: "HTTP 404: model \"x\" not found\n::error::injected"},
			{Seq: 4, Class: ErrServer, Message: "HTTP 500: overloaded"},
		}},
	}}
	got := tg.FirstFailures(MaxSaidPerClass)
	var msgs []string
	for _, f := range got {
		msgs = append(msgs, f.Message)
	}
	want := []string{"HTTP 404: model \"x\" not found\n::error::injected", "HTTP 500: overloaded", "HTTP 503: down"}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("first failures, in request order, distinct, two per class (-want +got):\n%s", diff)
	}
	said := EndpointSaid(got)
	wantSaid := `http: "HTTP 404: model \"x\" not found\\n:\u200b:error::injected"; server: "HTTP 500: overloaded"; server: "HTTP 503: down"`
	if said != wantSaid {
		t.Errorf("EndpointSaid =\n%s\nwant\n%s", said, wantSaid)
	}
	if EndpointSaid(nil) != "" {
		t.Errorf("EndpointSaid(nil) is not empty")
	}
}
