package app

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// DefaultConfig is the config file every command reads when it is not told
// which.
const DefaultConfig = "latgate.yaml"

// Run is what every measuring command is given: the config, and the
// overrides of its run settings (--base-url, --requests, --warmup,
// --concurrency, --timeout; nil when not given).
type Run struct {
	ConfigPath  string
	BaseURL     string
	Requests    *int
	Warmup      *int
	Concurrency *int
	Timeout     *time.Duration
	// Quiet turns the progress off.
	Quiet bool
	// TrustedConfig, when set, is a config whose endpoints alone may get
	// the key (--trusted-config; see refuseUntrusted).
	TrustedConfig string
	// OTLP is the OTLP/HTTP collector the measured requests are exported
	// to (--otlp; "": the OTEL_EXPORTER_OTLP_* environment's, if any; see
	// exportOTLP).
	OTLP string
}

// overrides are the flags of r that override the config's run, as a
// suggested command repeats them (" --base-url sim:fast --concurrency 4";
// "" when none): the same endpoint, and settings a bless --from holds the
// file to. requests: with --requests too, which means a check's requests
// per prompt to check but the measured requests to bless.
func (r Run) overrides(requests bool) string {
	var s string
	if r.BaseURL != "" {
		s += " --base-url " + shellQuote(r.BaseURL)
	}
	if r.Requests != nil && requests {
		s += " --requests " + strconv.Itoa(*r.Requests)
	}
	if r.Warmup != nil {
		s += " --warmup " + strconv.Itoa(*r.Warmup)
	}
	if r.Concurrency != nil {
		s += " --concurrency " + strconv.Itoa(*r.Concurrency)
	}
	if r.Timeout != nil {
		s += " --timeout " + r.Timeout.String()
	}
	return s
}

// apply validates the run overrides against the bounds the config has and
// sets them on cfg.
func (r Run) apply(cfg *config.Config) error {
	check := func(name string, v *int, least, most int) error {
		if v != nil && (*v < least || *v > most) {
			return UsageError(fmt.Errorf("--%s must be between %d and %d, got %d", name, least, most, *v))
		}
		return nil
	}
	if err := errors.Join(
		check("requests", r.Requests, 1, results.MaxPromptRequests),
		check("warmup", r.Warmup, 0, results.MaxWarmup),
		check("concurrency", r.Concurrency, 1, config.MaxConcurrency),
	); err != nil {
		return err
	}
	if r.Timeout != nil && (*r.Timeout <= 0 || *r.Timeout > config.MaxTimeout) {
		return UsageError(fmt.Errorf("--timeout must be above 0 and at most %s, got %v", config.MaxTimeout, *r.Timeout))
	}
	if r.OTLP != "" { // before measuring: a typo must not cost a run
		if _, err := export.ResolveOTLP(r.OTLP, otlpFlag, func(string) string { return "" }); err != nil {
			return UsageError(err)
		}
	}
	if r.BaseURL != "" {
		// Checked here, so that a bad value blames the flag, not the
		// config line whose base_url it overrides.
		if t := (config.Target{BaseURL: r.BaseURL}); t.IsSim() {
			if _, err := sim.ParseSpec(t.SimSpec()); err != nil {
				return UsageError(fmt.Errorf("--base-url %q: %w", r.BaseURL, err))
			}
		} else if err := checkURL(t); err != nil {
			return UsageError(fmt.Errorf("--base-url %q is not an http(s) URL (e.g. http://127.0.0.1:8000/v1), nor sim or sim:PROFILE", sanitize.URL(r.BaseURL)))
		}
		for i := range cfg.Targets {
			// Another endpoint is measured: a serve: server would listen
			// where nothing is sent (and the simulator needs none).
			cfg.Targets[i].BaseURL, cfg.Targets[i].Serve = r.BaseURL, nil
		}
	}
	if r.Requests != nil {
		cfg.Run.Requests = *r.Requests
	}
	if r.Warmup != nil {
		cfg.Run.Warmup = *r.Warmup
	}
	if msg := config.RunTooLarge(cfg.Run.Requests, cfg.Run.Warmup, len(cfg.Prompts)); msg != "" {
		return UsageError(fmt.Errorf("%s (with --requests/--warmup)", msg))
	}
	if r.Concurrency != nil {
		cfg.Run.Concurrency = *r.Concurrency
	}
	if r.Timeout != nil {
		cfg.Run.Timeout = *r.Timeout
	}
	return nil
}

// ConfigOptions are the options every command loads a config with: the
// environment, and the simulator's own check of "sim:SPEC" base URLs.
func ConfigOptions(getenv func(string) string) config.Options {
	return config.Options{Getenv: getenv, CheckSimSpec: func(spec string) error {
		_, err := sim.ParseSpec(spec)
		return err
	}}
}

// loadConfig loads the config of r and applies its overrides; every
// output learns the credentials the config will send.
func (a *App) loadConfig(r Run) (*config.Config, error) {
	a.Out.Learn(sanitize.Credentials("", r.BaseURL)...)
	a.Out.Learn(sanitize.Credentials("", a.Getenv("OPENAI_BASE_URL"))...)
	cfg, err := config.Load(r.ConfigPath, ConfigOptions(a.Getenv))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, UsageError(fmt.Errorf("no config at %s: pass --config FILE, or start from examples/latgate.yaml (latgate init writes one)", r.ConfigPath))
	}
	if err != nil {
		return nil, UsageError(err)
	}
	if err := r.apply(cfg); err != nil {
		return nil, err
	}
	a.learnTargets(cfg)
	if r.TrustedConfig != "" {
		if err := a.refuseUntrusted(cfg, r.TrustedConfig); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// learnTargets tells every output the credentials latgate will send.
func (a *App) learnTargets(cfg *config.Config) {
	for _, t := range cfg.Targets {
		for _, name := range measure.SecretEnv(t) { // the key and an app's secret headers
			a.Out.Learn(sanitize.Credentials(a.Getenv(name), t.BaseURL)...)
		}
	}
}

// orConfig is the one rule for a file both a flag and the config can name
// (the baseline, the history): the flag, else the config's.
func orConfig(flag, configured string) string {
	if flag != "" {
		return flag
	}
	return configured
}
