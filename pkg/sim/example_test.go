package sim_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/latgate/latgate/pkg/sim"
)

// A simulator profile from a spec: a preset, then key=value overrides. The
// same spec is what base_url: "sim:SPEC" in latgate.yaml and
// `latgate sim --profile SPEC` take.
func ExampleParseSpec() {
	p, err := sim.ParseSpec("fixed?ttft=80ms&tokens=32")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ttft", p.TTFT, "itl", p.ITL, "tokens", p.Tokens)
	// Output:
	// ttft 80ms fixed itl 5ms fixed tokens 32
}

// Start serves a profile on 127.0.0.1 until Close: a real streaming
// endpoint for tests and demos, with no network beyond loopback.
func ExampleStart() {
	p, err := sim.Preset("fast")
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	fmt.Println(strings.HasPrefix(srv.URL(), "http://127.0.0.1:"), strings.HasSuffix(srv.URL(), "/v1"))
	// Output:
	// true true
}
