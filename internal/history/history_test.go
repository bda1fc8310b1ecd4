package history

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/inputfile"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// runFile makes a results file of one target with n prompts of 60 requests,
// TTFT lognormal around 120 ms × scale, 24 tokens with ITL around 4 ms.
func runFile(rng *rand.Rand, prompts int, scale float64) *results.File {
	t := results.Target{Name: "primary", Model: "m", ReturnedModels: []string{"m-2026"}, SystemFingerprints: []string{"fp_1"}, Requests: 60 * prompts}
	for p := range prompts {
		var ss []results.Sample
		for i := range 60 {
			ttft := 120 * scale * math.Exp(0.25*rng.NormFloat64())
			s := results.Sample{Seq: i, TTFB: ttft / 2, TTFT: ttft, TTFCT: ttft, HasContent: true, OutputTokens: 24}
			at := ttft
			for range 23 {
				g := 4 * scale * math.Exp(0.2*rng.NormFloat64())
				s.ITL = append(s.ITL, g)
				s.MaxStall = max(s.MaxStall, g)
				at += g
			}
			s.Total = at
			s.TPOT = (at - ttft) / 23
			s.TokensPerS = 23 / (at - ttft) * 1000
			ss = append(ss, s)
		}
		t.Prompts = append(t.Prompts, results.Prompt{ID: fmt.Sprintf("prompt-%02d", p), Hash: "h", Requests: 60, Metrics: results.MetricsOf(ss), Samples: ss})
	}
	return &results.File{Schema: results.Schema, Version: "v1.0.0", ConfigHash: "cfg", Run: results.Run{Requests: 60}, Targets: []results.Target{t}}
}

func meta(at time.Time) Meta {
	return Meta{At: at, Commit: "abc123", Command: "check", Verdict: "ok", Runner: Runner{OS: "Linux", Arch: "X64", Name: "runner-1"}}
}

func TestAppendRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "history.jsonl")
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)
	var want []Record
	for i := range 3 {
		r := FromResults(runFile(rng, 2, 1), meta(t0.Add(time.Duration(i)*24*time.Hour)))
		res, err := Append(path, r, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Records != i+1 || res.Dropped != 0 {
			t.Fatalf("append %d: %+v", i, res)
		}
		want = append(want, r)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, f.Records); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, f.Lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if len(f.Problems) != 0 {
		t.Errorf("problems: %v", f.Problems)
	}
	// The summaries are the run's, not recomputed.
	p := f.Records[0].Targets[0].Prompts[0]
	if p.Metrics["ttft"].N != 60 || p.Metrics["itl"].N != 60*23 {
		t.Errorf("n: ttft %d itl %d", p.Metrics["ttft"].N, p.Metrics["itl"].N)
	}
	if _, ok := p.Metrics["tokens_per_s"]; !ok {
		t.Error("tokens_per_s is gateable: the history keeps it")
	}
}

// TestRecordsEveryGateableStatistic: a record keeps every metric and every
// statistic a gate can check (#17: the default gate checks ttft p90, which
// records did not keep, so trend never followed it), computed from the
// samples as the gate computes them, and reads them back; a record written
// before p90 was kept reads as "no p90", not as zero.
func TestRecordsEveryGateableStatistic(t *testing.T) {
	f := runFile(rand.New(rand.NewPCG(8, 8)), 1, 1)
	rec := FromResults(f, meta(time.Unix(1e9, 0)))
	line, err := Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	back := Parse(line)
	if len(back.Records) != 1 {
		t.Fatalf("problems: %v", back.Problems)
	}
	got := back.Records[0].Targets[0].Prompts[0]
	for _, metric := range results.GatedMetrics() {
		vals := results.Values(f.Targets[0].Prompts[0].Samples, metric)
		slices.Sort(vals)
		st, ok := got.Metrics[metric]
		if !results.Applies(metric, f.Targets[0].Prompts[0]) { // a chain metric of no chain
			if ok {
				t.Errorf("%s kept for a prompt that is no chain: %+v", metric, st)
			}
			continue
		}
		if !ok || st.N != len(vals) {
			t.Errorf("%s: kept %v (n %d), want n %d", metric, ok, st.N, len(vals))
			continue
		}
		for _, name := range stats.Named() {
			s, _ := stats.ParseStat(name)
			v, ok := st.Get(s)
			if want := math.Round(s.Of(vals)*1000) / 1000; !ok || v != want {
				t.Errorf("%s %s = %v (%v), want %v", metric, name, v, ok, want)
			}
		}
	}
	old := `{"schema":"latgate.history/v1","at":"2026-01-01T00:00:00Z","targets":[{"name":"t","prompts":[{"id":"p","m":{"ttft":{"n":60,"p50":100,"p95":150,"p99":170,"mean":110}}}]}]}`
	h := Parse([]byte(old))
	if len(h.Records) != 1 {
		t.Fatalf("an old record: %v", h.Problems)
	}
	st := h.Records[0].Targets[0].Prompts[0].Metrics["ttft"]
	if v, ok := st.Get(stats.Stat{P: 0.9}); ok {
		t.Errorf("an old record's p90 = %v; want no data", v)
	}
	if v, ok := st.Get(stats.Stat{P: 0.95}); !ok || v != 150 {
		t.Errorf("an old record's p95 = %v, %v", v, ok)
	}
}

func TestMalformedLinesSkippedAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	good, err := Encode(FromResults(runFile(rand.New(rand.NewPCG(1, 1)), 1, 1), meta(time.Unix(1e9, 0))))
	if err != nil {
		t.Fatal(err)
	}
	// Another run (a line repeated byte for byte is one run, read once).
	good2, err := Encode(FromResults(runFile(rand.New(rand.NewPCG(1, 1)), 1, 1), meta(time.Unix(1e9+86400, 0))))
	if err != nil {
		t.Fatal(err)
	}
	torn := good[:len(good)/2] // a write cut short, no newline
	content := string(good) + "not json\n\n" + `{"schema":"latgate.history/v9","at":"2026-01-01T00:00:00Z"}` + "\n" +
		`{"schema":"other/v1"}` + "\n" + `{"at":"2026-01-01T00:00:00Z"}` + "\n" + `{"schema":"latgate.history/v1"}` + "\n" + string(good2) + string(torn)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, p := range f.Problems {
		lines = append(lines, p.Line)
	}
	if diff := cmp.Diff([]int{2, 4, 5, 6, 7, 9}, lines); diff != "" {
		t.Errorf("problem lines (-want +got):\n%s\n%v", diff, f.Problems)
	}
	if diff := cmp.Diff([]int{1, 8}, f.Lines); diff != "" {
		t.Errorf("record lines (-want +got):\n%s", diff)
	}
	for _, want := range []string{"not a JSON object", "newer than this latgate reads", `"other/v1" is not a latgate history`, `no "schema"`, `no "at"`} {
		if !strings.Contains(fmt.Sprint(f.Problems), want) {
			t.Errorf("problems miss %q: %v", want, f.Problems)
		}
	}
	// An append keeps every line as it was (the blank one too), mends the
	// torn one's newline, and so loses neither the torn line nor the new
	// record.
	if _, err := Append(path, FromResults(runFile(rand.New(rand.NewPCG(1, 1)), 1, 1), meta(time.Unix(2e9, 0))), 0); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), content+"\n") {
		t.Error("append changed the existing lines")
	}
	f2, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f2.Records) != 3 || len(f2.Problems) != 6 {
		t.Errorf("after append: %d records, %d problems, want 3 and 6", len(f2.Records), len(f2.Problems))
	}
}

func TestRetention(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	rng := rand.New(rand.NewPCG(3, 3))
	var ats []time.Time
	for i := range 7 {
		at := time.Unix(int64(1e9+i*86400), 0).UTC()
		ats = append(ats, at)
		res, err := Append(path, FromResults(runFile(rng, 1, 1), meta(at)), 5)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(i+1, 5); res.Records != want {
			t.Errorf("append %d: %d records, want %d", i, res.Records, want)
		}
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Time
	for _, r := range f.Records {
		got = append(got, r.At)
	}
	if diff := cmp.Diff(ats[2:], got); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
}

// TestRetentionKeepsWhatIsNotARecord: --history-keep drops the oldest
// records and nothing else; malformed and blank lines before them stay as
// they were, where they were (#16: retention dropped every line before the
// oldest kept record, and a blank line vanished on the next append, though
// the README says malformed lines are "kept as they were").
func TestRetentionKeepsWhatIsNotARecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	rng := rand.New(rand.NewPCG(4, 4))
	line := func(day int) string {
		b, err := Encode(FromResults(runFile(rng, 1, 1), meta(time.Unix(int64(1e9+day*86400), 0))))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	content := "{broken\n" + line(0) + "\n" + line(1) + "   \n" + `{"schema":"latgate.history/v9","at":"2026-01-01T00:00:00Z"}` + "\n" + line(2)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Append(path, FromResults(runFile(rng, 1, 1), meta(time.Unix(1e9+3*86400, 0))), 2)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dropped != 2 || res.Records != 2 {
		t.Errorf("append with keep 2: %+v; want 2 records dropped, 2 kept", res)
	}
	data, _ := os.ReadFile(path)
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	want := []string{"{broken", "", "   ", `{"schema":"latgate.history/v9","at":"2026-01-01T00:00:00Z"}`}
	var kept []string
	for _, l := range got {
		if !isRecord([]byte(l)) {
			kept = append(kept, l)
		}
	}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("lines that are not records (-want +got):\n%s\nfile:\n%s", diff, data)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != 2 || !f.Records[0].At.Equal(time.Unix(1e9+2*86400, 0)) || len(f.Problems) != 2 {
		t.Errorf("after retention: %d records (first %v), %d problems; want the 2 newest and the 2 malformed lines", len(f.Records), f.Records[0].At, len(f.Problems))
	}
}

// TestOutOfOrder: records are read by their times, not their place in the
// file, with a warning naming the first line out of order (#16 item 5: a
// reversed history turned a 3x regression into a -67% "change").
func TestOutOfOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var lines []string
	for day := range 4 {
		b, err := Encode(FromResults(runFile(rng, 1, 1), meta(time.Unix(int64(1e9+day*86400), 0))))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	in := Parse([]byte(lines[0] + lines[1] + lines[2] + lines[3]))
	if len(in.Warnings) != 0 {
		t.Errorf("in order: warnings %q", in.Warnings)
	}
	rev := Parse([]byte(lines[3] + lines[2] + lines[1] + lines[0]))
	var ats []int64
	for _, r := range rev.Records {
		ats = append(ats, r.At.Unix())
	}
	if diff := cmp.Diff([]int64{1e9, 1e9 + 86400, 1e9 + 2*86400, 1e9 + 3*86400}, ats); diff != "" {
		t.Errorf("reversed file read as (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{4, 3, 2, 1}, rev.Lines); diff != "" {
		t.Errorf("line numbers follow their records (-want +got):\n%s", diff)
	}
	if len(rev.Warnings) != 1 || !strings.Contains(rev.Warnings[0], "line 2, 2001-09-11T01:46:40Z, comes after line 1") {
		t.Errorf("warnings %q", rev.Warnings)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "missing.jsonl")); !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing: %v", err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestSanitize(t *testing.T) {
	const key = "sk-SENTINEL-0123456789"
	f := runFile(rand.New(rand.NewPCG(1, 1)), 1, 1)
	f.Targets[0].ReturnedModels = []string{"model\n::error::" + key}
	f.Targets[0].SystemFingerprints = []string{strings.Repeat("x", 500)}
	m := meta(time.Unix(1e9, 0))
	m.Runner.Name = "runner " + key
	m.Sanitize = func(s string) string { return strings.ReplaceAll(s, key, "[REDACTED]") }
	line, err := Encode(FromResults(f, m))
	if err != nil {
		t.Fatal(err)
	}
	s := string(line)
	if strings.Contains(s, "SENTINEL") || strings.Contains(s, "::error") {
		t.Errorf("record carries the key or a workflow command: %s", s)
	}
	if strings.Count(s, "\n") != 1 {
		t.Error("a record is one line")
	}
	r := FromResults(f, m)
	if n := len([]rune(r.Targets[0].SystemFingerprints[0])); n != maxText {
		t.Errorf("clipped to %d runes, want %d", n, maxText)
	}
}

// TestEditedRecordCleanedOnRead: a record written by hand into the history
// branch (escape codes, a newline and a workflow command in its text) is
// read back clean, since trend prints these fields.
func TestEditedRecordCleanedOnRead(t *testing.T) {
	line, err := Encode(FromResults(runFile(rand.New(rand.NewPCG(1, 1)), 1, 1), meta(time.Unix(1e9, 0))))
	if err != nil {
		t.Fatal(err)
	}
	hostile := `x\u001b[2J\n::error title=pwned::all good` // JSON escapes
	edited := strings.NewReplacer(`"runner-1"`, `"`+hostile+`"`, `"m-2026"`, `"`+hostile+`"`, `"prompt-00"`, `"`+hostile+`"`,
		`"abc123"`, `"`+hostile+`"`).Replace(string(line))
	f := Parse([]byte(edited))
	if len(f.Records) != 1 || len(f.Problems) != 0 {
		t.Fatalf("parsed %d records, problems %v; want the edited record", len(f.Records), f.Problems)
	}
	r := f.Records[0]
	for what, s := range map[string]string{"runner.name": r.Runner.Name, "returned_models[0]": r.Targets[0].ReturnedModels[0],
		"prompts[0].id": r.Targets[0].Prompts[0].ID, "commit": r.Commit} {
		if strings.ContainsAny(s, "\x1b\n") || strings.Contains(s, "::") {
			t.Errorf("%s read back as %q: still holds a control character or a workflow command", what, s)
		}
	}
}

// TestGrowthPerRun prints how much one run adds to the history, for the
// README's claim ("a few KB with 10 prompts"), and fails if it ever grows
// past 8 KB.
func TestGrowthPerRun(t *testing.T) {
	for _, prompts := range []int{1, 10} {
		line, err := Encode(FromResults(runFile(rand.New(rand.NewPCG(1, 1)), prompts, 1), meta(time.Unix(1e9, 0))))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("history growth per run: %d bytes for 1 target × %d prompts × %d metrics (60 requests each)", len(line), prompts, len(results.GatedMetrics()))
		if prompts == 10 && len(line) > 8<<10 {
			t.Errorf("a 10-prompt run adds %d bytes, over 8 KB", len(line))
		}
	}
}

// TestReadFIFO: a named pipe given as the history is refused at once
// (issue #16 item 1: trend and tune opened it blocking and hung past
// SIGTERM), like every other input latgate reads.
func TestReadFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Read(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, inputfile.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), fifo) {
			t.Errorf("Read(fifo) = %v; want a not-a-regular-file error naming the path", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read blocks on a FIFO")
	}
}

// TestImpossibleValuesSkipped: a record holding a value no run can have
// measured is reported with its line and the field, and skipped, never used
// (#16 item 6: three records of p50 = 1e-300 ms after a 3x regression
// turned trend's exit 1 into 0; negative and zero values passed trend and
// tune). A 0 ms ITL (two tokens in one read) is a real measurement.
func TestImpossibleValuesSkipped(t *testing.T) {
	rec := func(m string) string {
		return `{"schema":"latgate.history/v1","at":"2026-01-01T00:00:00Z","requests":60,"targets":[{"name":"t","requests":60,"prompts":[{"id":"p","m":{` + m + `}}]}]}`
	}
	tests := []struct {
		name, metrics, want string // want: "" for a good record
	}{
		{"good", `"ttft":{"n":60,"p50":100,"p90":140,"p95":150,"p99":170,"mean":110}`, ""},
		{"itl of 0 ms", `"itl":{"n":600,"p50":0,"p95":4}`, ""},
		{"tiny", `"ttft":{"n":60,"p50":1e-300}`, "targets[0].prompts[0].m.ttft.p50: 1e-300 is below the microsecond"},
		// #27: between half a microsecond and one, which round never writes.
		{"under a microsecond", `"ttft":{"n":60,"p50":0.0007}`, "targets[0].prompts[0].m.ttft.p50: 0.0007 is below the microsecond"},
		{"itl of one microsecond", `"itl":{"n":600,"p50":0.001,"p95":4}`, ""},
		{"negative", `"ttft":{"n":60,"p50":-5}`, "m.ttft.p50: -5 is not a value a run measures"},
		{"zero ttft", `"ttft":{"n":60,"p50":0}`, "m.ttft.p50: 0 ms cannot be: ttft is positive"},
		{"absurd", `"total":{"n":60,"p50":1e308}`, "m.total.p50: 1e+308 ms is absurd"},
		{"no values", `"ttft":{"n":0,"p50":100}`, "m.ttft.n: 0 is out of range"},
		{"quantiles out of order", `"itl":{"n":600,"p50":5,"p95":4}`, "m.itl.p95: 4 is below p50 5"},
		{"absurd rate", `"tokens_per_s":{"n":60,"p50":1e12}`, "tokens_per_s.p50: 1e+12 tokens/s is absurd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse([]byte("\n" + rec(tt.metrics) + "\n"))
			if tt.want == "" {
				if len(f.Records) != 1 || len(f.Problems) != 0 {
					t.Errorf("a good record: %d records, problems %v", len(f.Records), f.Problems)
				}
				return
			}
			if len(f.Records) != 0 || len(f.Problems) != 1 || f.Problems[0].Line != 2 || !strings.Contains(f.Problems[0].What, tt.want) {
				t.Errorf("%d records, problems %v; want line 2 skipped: %q", len(f.Records), f.Problems, tt.want)
			}
		})
	}
}

// TestAtLoad: a history read for one load keeps that load's records (with
// their line numbers) and says how many of another it left out; a
// record's rate comes from its run's.
func TestAtLoad(t *testing.T) {
	f := &File{
		Records: []Record{{Requests: 1}, {Requests: 2, Rate: 8}, {Requests: 3}, {Requests: 4, Rate: 16}},
		Lines:   []int{1, 2, 3, 4},
	}
	if n := f.AtLoad(0); n != 2 || len(f.Records) != 2 || f.Records[1].Requests != 3 || f.Lines[1] != 3 {
		t.Errorf("AtLoad(0): dropped %d, kept %+v at lines %v; want the two closed-loop runs, lines 1 and 3", n, f.Records, f.Lines)
	}
	rec := FromResults(&results.File{Run: results.Run{Requests: 5, Rate: 8, Arrival: "poisson", MaxInFlight: 256}}, Meta{})
	if rec.Rate != 8 {
		t.Errorf("a record of a run at 8 requests/s has rate %v", rec.Rate)
	}
}
