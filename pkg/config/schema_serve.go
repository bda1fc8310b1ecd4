package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// This file holds serve:, a process latgate starts before it measures a
// target and stops after: the team's own app server, built from the
// commit under test, e.g.
//
//	serve: {command: [./bin/app, --port, "8081"], ready: "http://127.0.0.1:8081/healthz"}
//
// Like price: it is how the endpoint is reached, not what is measured: it
// is in no hash, so a rebuilt binary never labels a baseline.

// Serve is the process of a target's serve:.
type Serve struct {
	// Command is the program and its arguments, run without a shell.
	Command []string
	// Dir is the working directory, resolved against the config's
	// directory; the config's directory when not set.
	Dir string
	// Env is added to the environment the process inherits from latgate.
	Env map[string]string
	// PassEnv names the secrets the process inherits: latgate's
	// environment reaches it without the variables its targets send as
	// credentials and those whose names say they hold one (SecretName),
	// but for these.
	PassEnv []string
	// Ready is when the server is ready: "" for when base_url's host and
	// port accept a connection, "port:N" for when 127.0.0.1:N does, or an
	// http(s) URL that answers 2xx.
	Ready string
	// ReadyTimeout bounds the wait for Ready (default 30s).
	ReadyTimeout time.Duration
	// StopGrace is how long the process group has between SIGTERM and
	// SIGKILL (default 5s).
	StopGrace time.Duration
	Line      int    // line of serve: in the config file
	Path      string // the config file, for errors (ab starts both sides' servers)
	dir       string // dir as written ("" for none), for UnreviewedServes
}

// Key identifies the process: two targets whose serve: are equal share
// one process (the same build on the same port, as both sides of an ab
// run of one config). Two that differ in anything start two.
func (s Serve) Key() string {
	var b strings.Builder
	for _, part := range [][]string{s.Command, {s.Dir, s.Ready, s.ReadyTimeout.String(), s.StopGrace.String()}, sortedPairs(s.Env), s.PassEnv} {
		for _, x := range part {
			b.WriteString(strconv.Quote(x))
		}
		b.WriteByte('|')
	}
	return b.String()
}

func sortedPairs(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// Limits of serve:.
const (
	maxServeArgs   = 256
	maxServeArg    = 4096
	maxServeEnv    = 256
	maxReadyWait   = time.Hour
	maxStopGrace   = 5 * time.Minute
	serveExample   = `serve: {command: [./bin/app, --port, "8081"], ready: "port:8081"}`
	defaultReadyTO = "30s"
)

var serveFields = []field[Serve]{hand[Serve]("command"), hand[Serve]("dir"), hand[Serve]("env"), hand[Serve]("pass_env"),
	strField("ready", "", "port:8081", readyProblem, func(s *Serve, v string) { s.Ready = v }),
	durField("ready_timeout", defaultReadyTO, maxReadyWait, "30s", func(s *Serve, d time.Duration) { s.ReadyTimeout = d }),
	durField("stop_grace", "5s", maxStopGrace, "5s", func(s *Serve, d time.Duration) { s.StopGrace = d }),
}

// readyProblem says what is wrong with a ready: value, "" when nothing is.
func readyProblem(v string) string {
	if n, ok := strings.CutPrefix(v, "port:"); ok {
		if p, err := strconv.Atoi(n); err != nil || p < 1 || p > 65535 {
			return fmt.Sprintf("%q is not port:N with N from 1 to 65535; e.g. ready: port:8081", v)
		}
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("%q is neither port:N nor an http(s) URL; write ready: port:8081 (ready when 127.0.0.1:8081 accepts a connection) or ready: http://127.0.0.1:8081/healthz (ready when it answers 2xx)", v)
	}
	if u.User != nil {
		return "the ready URL holds credentials; latgate sends none to it, and the config is committed: remove them"
	}
	return ""
}

// serve reads a target's serve:, nil when absent. t is the target read so
// far (its base_url).
func (p *parser) serve(m map[string]*yaml.Node, path string, t *Target) *Serve {
	n := get(m, "serve")
	if n == nil {
		return nil
	}
	path += ".serve"
	sm, ok := p.mapping(n, path, keysOf(serveFields))
	if !ok {
		return nil
	}
	s := defaults(serveFields)
	s.Line = deref(n).Line
	if t.IsSim() {
		p.fail(n, path, "base_url %s is latgate's built-in simulator, which needs no server; serve: starts your own, so set base_url to where it listens (e.g. http://127.0.0.1:8081/v1)", t.BaseURL)
		return nil
	}
	if v := get(sm, "command"); v == nil {
		p.fail(n, path, "missing command; name the program and its arguments as a list, e.g. %s", serveExample)
	} else if items, ok := p.list(v, path+".command", `command: [./bin/app, --port, "8081"]`); ok {
		switch {
		case len(items) == 0:
			p.fail(v, path+".command", "empty; name the program and its arguments, e.g. %s", serveExample)
		case len(items) > maxServeArgs:
			p.fail(v, path+".command", "%d arguments is over the %d latgate runs; wrap them in a script", len(items), maxServeArgs)
		}
		for i, it := range items {
			f := fmt.Sprintf("%s.command[%d]", path, i)
			a, ok := p.str(it, f, "./bin/app")
			switch {
			case !ok:
			case i == 0 && a == "":
				p.fail(it, f, "empty program name; e.g. %s", serveExample)
			case len(a) > maxServeArg:
				p.fail(it, f, "%d bytes is over the %d an argument may have; wrap the command in a script", len(a), maxServeArg)
			default:
				s.Command = append(s.Command, a)
			}
		}
		if len(items) == 1 && len(s.Command) == 1 && strings.ContainsAny(s.Command[0], " \t") && !strings.ContainsAny(s.Command[0], "/\\") {
			p.fail(items[0], path+".command[0]", "%q holds spaces: the command runs without a shell, one list item per argument; write e.g. command: [./bin/app, --port, \"8081\"] (or [sh, -c, \"...\"] for a shell)", s.Command[0])
		}
	}
	if v := get(sm, "dir"); v != nil {
		if d, ok := p.str(v, path+".dir", "."); ok {
			if d == "" {
				p.fail(v, path+".dir", "empty; remove it for the config's directory, or name a directory, e.g. dir: app")
			} else {
				s.Dir, s.dir = p.resolve(d), d
			}
		}
	}
	if s.Dir == "" {
		s.Dir = p.dir
	}
	if v := get(sm, "env"); v != nil {
		s.Env = p.serveEnv(v, path+".env")
	}
	if v := get(sm, "pass_env"); v != nil {
		s.PassEnv = p.passEnv(v, path+".pass_env")
	}
	s.Path = p.path
	readFields(p, sm, path, &s, serveFields[4:]...)
	return &s
}

// passEnv reads serve.pass_env: names of environment variables.
func (p *parser) passEnv(n *yaml.Node, field string) []string {
	items, ok := p.list(n, field, "pass_env: [OPENAI_API_KEY]")
	if !ok {
		return nil
	}
	var names []string
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		name, ok := p.str(it, f, "OPENAI_API_KEY")
		switch {
		case !ok:
		case !envPattern.MatchString(name):
			p.fail(it, f, "%q is not an environment variable name (letters, digits, _); name the variable, never its value, e.g. pass_env: [OPENAI_API_KEY]", sanitizeName(name))
		case slices.Contains(names, name):
			p.fail(it, f, "%s is listed twice; keep one", name)
		default:
			names = append(names, name)
		}
	}
	return names
}

// sanitizeName shows at most the start of what may be a pasted secret.
func sanitizeName(s string) string {
	if len(s) > 12 {
		return s[:4] + "…"
	}
	return s
}

// serveEnv reads serve.env: names to literal values, added to the
// environment the process inherits. A value under a credential's name is
// refused: the config is committed; the process inherits latgate's
// environment, where the secret already is.
func (p *parser) serveEnv(n *yaml.Node, field string) map[string]string {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.fail(n, field, "want a mapping of environment variable names to values, got %s; e.g. env: {PORT: \"8081\"}", describe(n))
		return nil
	}
	if len(n.Content)/2 > maxServeEnv {
		p.fail(n, field, "%d variables is over the %d latgate sets; wrap the command in a script", len(n.Content)/2, maxServeEnv)
		return nil
	}
	env := make(map[string]string)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || !envPattern.MatchString(k.Value) {
			p.fail(k, field, "%s is not an environment variable name (letters, digits, _, not starting with a digit); e.g. env: {PORT: \"8081\"}", describe(k))
			continue
		}
		f := field + "." + k.Value
		if _, dup := env[k.Value]; dup {
			p.fail(k, f, "duplicate variable; keep one")
			continue
		}
		if SecretName(k.Value) {
			p.fail(k, f, "looks like a credential, and serve.env is committed with the config; remove it, export %s in the job (a secret) and list it in serve.pass_env: [%s]", k.Value, k.Value)
			continue
		}
		if v.Kind != yaml.ScalarNode || isNull(v) {
			p.fail(v, f, "want a string value, got %s; quote numbers, e.g. %s: \"8081\"", describe(v), k.Value)
			continue
		}
		if !p.text(v, f, v.Value) {
			continue
		}
		env[k.Value] = v.Value
	}
	return env
}

// SecretName reports whether an environment variable's name says it holds
// a credential: a _-separated word such as KEY, TOKEN, SECRET, PASSWORD,
// DSN or PWD, or PASSWORD, PASSWD or SECRET anywhere in it (so
// OPENAI_API_KEY, PGPASSWORD, MYSQL_PWD and SENTRY_DSN are; PWD, the working
// directory, and TOKENIZERS_PARALLELISM are not).
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	if up == "PWD" || up == "OLDPWD" {
		return false
	}
	for _, w := range []string{"PASSWORD", "PASSWD", "SECRET", "APIKEY"} {
		if strings.Contains(up, w) {
			return true
		}
	}
	for w := range strings.SplitSeq(up, "_") {
		switch w {
		case "KEY", "TOKEN", "PASS", "CREDENTIALS", "CREDENTIAL", "CREDS", "BEARER", "COOKIE", "DSN", "PWD", "PAT":
			return true
		}
	}
	return false
}
