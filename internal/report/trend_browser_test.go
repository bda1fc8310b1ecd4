package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/trend"
)

// chromium returns the path of a Chromium or Chrome binary, "" for none.
func chromium() string {
	if p := os.Getenv("LATGATE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// headless runs the browser on page with args and returns its stdout.
func headless(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errb.String())
	}
	return out.Bytes()
}

// TestTrendHTMLInBrowser renders the page in a real headless Chromium
// (apt-get install chromium; skipped without one, unless
// LATGATE_REQUIRE_CHROMIUM is set, as CI sets it): the DOM the browser
// built holds one chart per series and the change point marked, and a
// screenshot of it is a real picture (kept in LATGATE_SCREENSHOT_DIR when
// set, for a person to look at).
func TestTrendHTMLInBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" {
		if os.Getenv("LATGATE_REQUIRE_CHROMIUM") != "" {
			t.Fatal("LATGATE_REQUIRE_CHROMIUM is set, but there is no chromium (apt-get install -y chromium, or set LATGATE_CHROMIUM)")
		}
		t.Skip("no chromium here (apt-get install -y chromium, or set LATGATE_CHROMIUM)")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	recs, spec := trendInput()
	for i := range recs {
		recs[i].BlessedAt = spec.BlessedAt
	}
	rep := trend.Analyze(recs, spec, trend.Options{})
	dir := t.TempDir()
	page := filepath.Join(dir, "trend.html")
	var buf bytes.Buffer
	if err := TrendHTML(&buf, rep, nil, TrendOptions{History: "latgate.history.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(headless(t, bin, page, "--dump-dom"))
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(dom, -1)) }
	if got := count(`<svg class="chart"`); got != len(rep.Series) {
		t.Errorf("the browser's DOM holds %d charts for %d series", got, len(rep.Series))
	}
	if count(`<line class="change regression" data-run="15"`) != 1 || count(`<rect class="interval  regression"`) != 1 {
		t.Errorf("the regressed series' change point (run 15) and its interval are not marked in the DOM")
	}
	if count(`<tr>`) != len(rep.Series)+1 || !strings.Contains(dom, `REGRESSED`) {
		t.Errorf("the table of verdicts is not in the DOM")
	}
	shot := filepath.Join(dir, "trend.png")
	if d := os.Getenv("LATGATE_SCREENSHOT_DIR"); d != "" {
		shot = filepath.Join(d, "trend-browser-test.png")
	}
	headless(t, bin, page, "--window-size=1100,1400", "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 1000 {
		t.Errorf("screenshot %v", b)
	}
	// Not blank: the charts' blue runs and the regression's red are drawn.
	var blue, red int
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			switch {
			case bl > 180 && r < 60 && g > 80 && g < 140:
				blue++
			case r > 180 && g < 70 && bl < 70:
				red++
			}
		}
	}
	t.Logf("screenshot %s: %dx%d, %d blue and %d red sample pixels", shot, b.Dx(), b.Dy(), blue, red)
	if blue < 50 || red < 20 {
		t.Errorf("the screenshot shows no chart (%d blue, %d red pixels sampled)", blue, red)
	}
}
