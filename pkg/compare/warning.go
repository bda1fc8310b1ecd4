package compare

import "github.com/latgate/latgate/pkg/results"

// WarningKind says what a Warning is about; the fields a warning sets are
// its kind's (each kind's comment names them).
type WarningKind string

// Warning kinds.
const (
	// WarnMetric: the check Metric Stat was skipped, its metric is not one
	// the gate can gate (GatedMetrics of results).
	WarnMetric WarningKind = "ungated_metric"
	// WarnStat: the check Metric Stat was skipped, its statistic is not one
	// the gate computes.
	WarnStat WarningKind = "unknown_stat"
	// WarnNoCacheUsage: cache_hit_rate of the warm prompt Prompts[0] of
	// Target was not checked, the endpoint reports no prompt tokens.
	WarnNoCacheUsage WarningKind = "no_cache_usage"
	// WarnNoSLO: slo_attainment was asked, and no prompt has an slo.
	WarnNoSLO WarningKind = "no_slo"
	// WarnUnresolvable: Metric Stat of Prompts (of Target when the run has
	// several, NameTarget) cannot be resolved with Have Unit; it needs Need.
	WarnUnresolvable WarningKind = "unresolvable"
	// WarnFailures: Count of Requests requests of Target failed, ByClass;
	// Said is what the endpoint said (sanitised, results.EndpointSaid).
	WarnFailures WarningKind = "failures"
	// WarnRetries: Target's requests were retried Count times after HTTP 429.
	WarnRetries WarningKind = "retries"
	// WarnLost: Metric Stat of prompt Prompts[0] of Target had values in
	// Count baseline requests and has none in this run.
	WarnLost WarningKind = "lost_values"
	// WarnRunnerBusy: latgate's own runner woke Lateness late while it
	// measured Target (beyond BusyLagMS); Count of its regressions were
	// within what that delay explains and are undecided (StuckRunner).
	WarnRunnerBusy WarningKind = "runner_busy"
	// WarnScheduleMissed: Target's arrival-rate run (at Rate per second)
	// sent late beyond results.ScheduleLateMS (Sends): its Count checks
	// are undecided (StuckSchedule).
	WarnScheduleMissed WarningKind = "schedule_missed"
	// WarnColdStart: Target's first Count requests (of the baseline when
	// Side is "baseline") ran slower than the rest, Ratio × in median TTFT:
	// a cold start, left out of the comparison (see coldHead). Matched:
	// this side had too few requests to test its own start, and its first
	// Count are left out as the other side's cold start of Requests was
	// (fewer when that would cut more than a third of the run's requests
	// or leave a prompt short of what its checks need; Count 0: none could
	// be spared, and the start was kept).
	WarnColdStart WarningKind = "cold_start"
	// WarnCorrelated: Target's requests (of the baseline when Side is
	// "baseline") were correlated in arrival order in Metric: the run's
	// mean varied Ratio × as much as independent requests give (a level
	// wandering within the run), and the intervals of Metric carry it
	// (see Wander).
	WarnCorrelated WarningKind = "correlated_requests"
	// WarnNothingCompared: no check applies to a target and prompt both
	// sides have (Side "both" in an A/B comparison).
	WarnNothingCompared WarningKind = "nothing_compared"
)

// Warning is something the gate noticed that decides nothing but must not
// pass quietly: a check it skipped, requests that failed, a statistic too
// few requests cannot resolve. It is a value; internal/report words it.
type Warning struct {
	Kind WarningKind
	// Side is the A/B side a target's warning is of ("base",
	// "candidate"), or "both" for WarnNothingCompared; "" outside ab, or
	// "baseline" for a WarnColdStart of the baseline's run.
	Side           string
	Target, Region string
	// NameTarget: the words name the target (a run of several targets).
	NameTarget   bool
	Prompts      []string
	Metric, Stat string
	// Have and Need are an unresolvable check's counts, in Unit
	// ("requests" or "gaps").
	Have, Need int
	Unit       string
	// Count and Requests: failed requests of all, retries, or baseline
	// requests that had values (see the kinds).
	Count, Requests int
	ByClass         map[string]int
	Said            string
	// Lateness is the busy runner's (WarnRunnerBusy).
	Lateness results.Lateness
	// Sends and Rate are a missed schedule's (WarnScheduleMissed).
	Sends results.Sends
	Rate  float64
	// Ratio is a cold start's median TTFT over the steady part's, or
	// correlated requests' variance inflation of the run's mean.
	Ratio float64
	// Matched is a cold start taken from the other side (WarnColdStart).
	Matched bool
}
