package config

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// section is a field table seen without its type: its keys in order and
// the defaults of those that have one.
type section struct {
	path string // the section's path in the docs' YAML ("targets" for every target)
	keys []string
	defs map[string]string
	// text, when not "", is the heading of docs/config.md whose text names
	// every key as `key`: its YAML examples show only some.
	text string
}

func sectionOf[S any](path string, fields []field[S], text string) section {
	s := section{path: path, keys: keysOf(fields), defs: map[string]string{}, text: text}
	for _, f := range fields {
		if f.def != "" {
			s.defs[f.key] = f.def
		}
	}
	return s
}

// sections are every table, and the hand-kept key lists, that
// docs/config.md documents.
func sections() []section {
	return []section{
		{path: "", keys: topKeys},
		{path: "prompts", keys: promptKeys},
		sectionOf("targets", targetFields, ""),
		sectionOf("run", runFields, ""),
		sectionOf("gate", gateFields, ""),
		sectionOf("targets.slo", sloFields, "targets"),
		sectionOf("prompts.slo", sloFields, "targets"), // a prompt's slo is a target's
		sectionOf("targets.price", priceFields, "targets"),
		sectionOf("targets.serve", serveFields, ""),
		sectionOf("ab", abFields, ""),
		sectionOf("knee", kneeFields, ""),
	}
}

// TestTableDefaults: the tables' defaults are the ones latgate has always had.
func TestTableDefaults(t *testing.T) {
	wantRun := Run{Requests: 60, Warmup: 2, Concurrency: 1, Timeout: 60 * time.Second, Order: "interleave", Seed: 1,
		Arrival: ArrivalPoisson, MaxInFlight: defaultMaxInFlight} // the last two only with run.rate (openLoop)
	if diff := cmp.Diff(wantRun, defaults(runFields)); diff != "" {
		t.Errorf("run (-want +got):\n%s", diff)
	}
	wantGate := Gate{Confidence: 0.95, Resamples: 2000, Seed: 1, Aggregate: true, Checks: DefaultChecks(),
		DayToDay: DayToDayAuto, OkConfidence: DefaultOkConfidence, OnInconclusive: OnInconclusiveWarn}
	if diff := cmp.Diff(wantGate, DefaultGate()); diff != "" {
		t.Errorf("gate (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Target{MaxTokens: 64, IncludeUsage: true, MaxErrorRate: 0.05}, defaults(targetFields)); diff != "" {
		t.Errorf("target (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(SLO{}, defaults(sloFields)); diff != "" {
		t.Errorf("slo (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Price{}, defaults(priceFields)); diff != "" {
		t.Errorf("price (-want +got):\n%s", diff)
	}
}

// TestTableKeysUnique: a key is in its section's table once; a second row
// would list it twice in an unknown key's message.
func TestTableKeysUnique(t *testing.T) {
	for _, s := range sections() {
		seen := make(map[string]bool)
		for _, k := range s.keys {
			if seen[k] {
				t.Errorf("%s: key %s is listed twice", s.path, k)
			}
			seen[k] = true
		}
	}
}

// TestEveryKeyIsRead: every key a table allows is read: a value of the
// wrong type (a list of lists) is refused at that key.
func TestEveryKeyIsRead(t *testing.T) {
	const prompts = "prompts: [{id: p, messages: [{role: user, content: hi}]}]\n"
	target := func(key, value string) string {
		src := "targets: [{" + key + ": " + value
		for _, k := range []string{"name: a", "base_url: sim"} {
			if !strings.HasPrefix(k, key+":") {
				src += ", " + k
			}
		}
		return src + "}]\n" + prompts
	}
	head := target("region", "r")
	tests := []struct {
		path string // of the field in messages
		keys []string
		src  func(key string) string
	}{
		{"run", keysOf(runFields), func(k string) string { return head + "run: {" + k + ": [[]]}\n" }},
		{"gate", keysOf(gateFields), func(k string) string { return head + "gate: {" + k + ": [[]]}\n" }},
		{"targets[0]", keysOf(targetFields), func(k string) string { return target(k, "[[]]") }},
		{"targets[0].slo", keysOf(sloFields), func(k string) string { return target("slo", "{"+k+": [[]]}") }},
		{"targets[0].price", keysOf(priceFields), func(k string) string { return target("price", "{"+k+": [[]]}") }},
		{"targets[0].serve", keysOf(serveFields), func(k string) string {
			return strings.Replace(target("serve", "{"+k+": [[]]}"), "base_url: sim", "base_url: http://127.0.0.1:8081/v1, model: m", 1)
		}},
	}
	for _, tt := range tests {
		for _, k := range tt.keys {
			t.Run(tt.path+"."+k, func(t *testing.T) {
				_, err := Parse([]byte(tt.src(k)), "latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim})
				at := regexp.MustCompile(" " + regexp.QuoteMeta(tt.path+"."+k) + `[:\[]`)
				if err == nil || !at.MatchString(err.Error()) {
					t.Errorf("error %v; want one at %s.%s", err, tt.path, k)
				}
			})
		}
	}
}

// docKeys returns the keys docs/config.md's YAML examples use, by section
// path ("" for the top level, "targets" for every target, "targets.slo"),
// each with the value it is first shown with ("" for a list or mapping).
func docKeys(t *testing.T, doc []byte) map[string]map[string]string {
	t.Helper()
	keys := make(map[string]map[string]string)
	var walk func(path string, n *yaml.Node)
	walk = func(path string, n *yaml.Node) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode: // a list's items are the section's
			for _, it := range n.Content {
				walk(path, it)
			}
		case yaml.MappingNode:
			if keys[path] == nil {
				keys[path] = make(map[string]string)
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				if _, seen := keys[path][k]; !seen {
					keys[path][k] = v.Value
				}
				walk(join(path, k), v)
			}
		}
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) == 0 {
		t.Fatal("docs/config.md has no ```yaml blocks")
	}
	for i, b := range blocks {
		var n yaml.Node
		if err := yaml.Unmarshal(b[1], &n); err != nil {
			t.Fatalf("docs/config.md, YAML block %d: %v", i+1, err)
		}
		walk("", &n)
	}
	return keys
}

func readDoc(t *testing.T) []byte {
	t.Helper()
	doc, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatalf("read the config reference: %v", err)
	}
	return doc
}

// TestDocsKeys: docs/config.md's examples show every key of each section
// and no key the schema lacks; where they show only some (slo, price), the
// text under the section's heading names the others.
func TestDocsKeys(t *testing.T) {
	doc := readDoc(t)
	shown := docKeys(t, doc)
	for _, s := range sections() {
		t.Run(s.path, func(t *testing.T) {
			var got []string
			for k := range shown[s.path] {
				got = append(got, k)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(s.keys))
			if s.text == "" {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("keys the YAML examples show (-schema +docs):\n%s", diff)
				}
				return
			}
			for _, k := range got {
				if !slices.Contains(want, k) {
					t.Errorf("the YAML examples show %s.%s, which the schema lacks", s.path, k)
				}
			}
			text := docSection(t, doc, s.text)
			for _, k := range want {
				if !slices.Contains(got, k) && !strings.Contains(text, "`"+k+"`") {
					t.Errorf("%s.%s is in neither the YAML examples nor the text under ## %s (as `%s`)", s.path, k, s.text, k)
				}
			}
		})
	}
}

// docSection returns the text under the heading "## heading" of doc, up to
// the next heading of that level.
func docSection(t *testing.T, doc []byte, heading string) string {
	t.Helper()
	_, text, ok := strings.Cut(string(doc), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("docs/config.md has no heading ## %s", heading)
	}
	text, _, _ = strings.Cut(text, "\n## ")
	return text
}

// TestDocsDefaults: where the schema has a default, docs/config.md's
// example shows it, as latgate.yaml spells it: the examples are the
// defaults.
func TestDocsDefaults(t *testing.T) {
	shown := docKeys(t, readDoc(t))
	for _, s := range sections() {
		for _, k := range s.keys {
			def, ok := s.defs[k]
			if !ok {
				continue
			}
			if got := shown[s.path][k]; got != def {
				t.Errorf("%s.%s: docs/config.md shows %q, the default is %q", s.path, k, got, def)
			}
		}
	}
}

// TestStreamKeysDocumented: the keys of api: sse's and api: ndjson's
// sections, which config.md leaves to endpoints.md, are each there, in the
// section of their API (#33: the sse keys were documented nowhere that the
// README pointed).
func TestStreamKeysDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/endpoints.md")
	if err != nil {
		t.Fatal(err)
	}
	cfgDoc := string(readDoc(t))
	for _, s := range []struct {
		api  string
		keys []string
	}{{"sse", sseKeys}, {"ndjson", ndjsonKeys}} {
		_, rest, ok := strings.Cut(string(doc), "## `api: "+s.api+"`")
		if !ok {
			t.Errorf("docs/endpoints.md has no section ## `api: %s`", s.api)
			continue
		}
		if i := strings.Index(rest, "\n## "); i >= 0 {
			rest = rest[:i]
		}
		for _, k := range s.keys {
			if !strings.Contains(rest, k+":") && !strings.Contains(rest, "`"+k+"`") {
				t.Errorf("docs/endpoints.md's api: %s section does not show %s.%s", s.api, s.api, k)
			}
		}
		if !strings.Contains(cfgDoc, s.api+": {...}") {
			t.Errorf("docs/config.md's targets example does not point to the %s section", s.api)
		}
	}
}
