package results

import (
	"math"
	"time"

	"github.com/latgate/latgate/pkg/stats"
)

// SweepSchema names the sweep file format (`latgate sweep --out`).
const SweepSchema = "latgate.sweep/v1"

// Sweep is what `latgate sweep` measured: each target at each arrival rate
// in turn, its latency and goodput there, and its knee, the highest rate
// at which at least Goal of its requests met their SLO.
type Sweep struct {
	Schema     string    `json:"schema"`
	Version    string    `json:"latgate_version"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	ConfigPath string    `json:"config_path,omitempty"`
	ConfigHash string    `json:"config_hash"`
	// Partial marks a sweep that stopped before its last rate for another
	// reason than a knee found (an interruption).
	Partial bool `json:"partial,omitempty"`
	// Goal is the share of requests meeting their SLO a rate must keep to
	// be below the knee; Level the confidence of the knee's interval.
	Goal    float64 `json:"goal"`
	Level   float64 `json:"level"`
	Arrival string  `json:"arrival"`
	// Rates are the rates asked for, in order; a target's Steps are the
	// ones measured (the sweep stops past every target's knee).
	Rates   []float64     `json:"rates"`
	Targets []SweepTarget `json:"targets"`
}

// SweepTarget is one target's sweep.
type SweepTarget struct {
	Name   string      `json:"name"`
	Region string      `json:"region,omitempty"`
	Model  string      `json:"model"`
	Steps  []SweepStep `json:"steps"`
	// Knee is nil when no prompt of the target has an SLO.
	Knee *SweepKnee `json:"knee,omitempty"`
}

// Label names the target as results.Target.Label does.
func (t SweepTarget) Label() string { return Label(t.Name, t.Region) }

// SweepStep is a target at one rate.
type SweepStep struct {
	Rate float64 `json:"rate"`
	// Requests counts the measured requests (failed ones too); Met those
	// of prompts with an SLO that met it, out of WithSLO (a failed request
	// meets none).
	Requests int `json:"requests"`
	Errors   int `json:"errors"`
	Met      int `json:"met"`
	WithSLO  int `json:"with_slo"`
	// Goodput is Met ÷ WithSLO (0 without an SLO); GoodputPerS the
	// requests per second that met it (Goodput × the rate sent).
	Goodput     float64 `json:"goodput"`
	GoodputPerS float64 `json:"goodput_per_s"`
	// TTFT, ITL and total percentiles over every prompt (ms; times from
	// each scheduled send).
	TTFTP50  float64 `json:"ttft_p50_ms"`
	TTFTP95  float64 `json:"ttft_p95_ms"`
	ITLP95   float64 `json:"itl_p95_ms"`
	TotalP95 float64 `json:"total_p95_ms"`
	Sends    *Sends  `json:"sends,omitempty"`
}

// SweepKnee is a target's knee: the rate at which its goodput,
// interpolated between steps, falls below the goal, with the interval of
// the same crossing for the steps' confidence bounds. Below: even the
// first rate was below the goal (Rate and Lo 0, Hi that rate). Above: no
// rate was (Rate and Hi the highest rate swept: the knee is beyond it).
// HiOpen: the interval's upper end is beyond the highest rate swept (Hi).
type SweepKnee struct {
	Rate   float64 `json:"rate"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Below  bool    `json:"below,omitempty"`
	Above  bool    `json:"above,omitempty"`
	HiOpen bool    `json:"hi_open,omitempty"`
}

// KneeFrom is the knee of stats.KneeOf as a sweep records it, for a sweep
// whose highest rate with requests was last: an infinite end (a knee
// beyond the rates swept, or an interval reaching beyond them) is written
// as that rate, and said.
func KneeFrom(k stats.Knee, last float64) *SweepKnee {
	out := &SweepKnee{Rate: k.Rate, Lo: k.Lo, Hi: k.Hi, Below: k.Below, Above: k.Above}
	if k.Above {
		out.Rate, out.Hi = last, last
	}
	if math.IsInf(out.Hi, 1) {
		out.Hi, out.HiOpen = last, true
	}
	return out
}
