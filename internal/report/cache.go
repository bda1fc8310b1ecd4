package report

import (
	"fmt"
	"strings"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// CacheLine sets a target's warm and cold TTFT side by side when it
// measured prompts of both cache modes, for example
//
//	prompt cache: TTFT p50 warm 120 ms (faq; 99% of prompt tokens cached), cold 326 ms (fresh; 0%): a miss costs +172%
//
// (pooled over the prompts of each mode); "" otherwise.
func CacheLine(t results.Target) string {
	var ids [2][]string
	var ttft [2][]float64
	var cached, prompt [2]int
	for _, p := range t.Prompts {
		i := -1
		switch p.Cache {
		case results.CacheWarm:
			i = 0
		case results.CacheCold:
			i = 1
		default:
			continue
		}
		ids[i] = append(ids[i], p.ID)
		for _, s := range p.Samples {
			ttft[i] = append(ttft[i], s.TTFT)
			if s.PromptTokens > 0 {
				cached[i] += min(s.CachedTokens, s.PromptTokens)
				prompt[i] += s.PromptTokens
			}
		}
	}
	if len(ttft[0]) == 0 || len(ttft[1]) == 0 {
		return ""
	}
	side := func(i int) (string, float64) {
		p50 := stats.Summarize(ttft[i]).P50
		s := fmt.Sprintf("%s (%s", numfmt.Millis(p50), strings.Join(ids[i], ", "))
		if prompt[i] > 0 {
			s += "; " + sharePercent(float64(cached[i])/float64(prompt[i]))
			if i == 0 {
				s += " of prompt tokens cached"
			}
		}
		return s + ")", p50
	}
	warm, w := side(0)
	cold, c := side(1)
	line := fmt.Sprintf("prompt cache: TTFT p50 warm %s, cold %s", warm, cold)
	if w > 0 {
		line += ": a miss costs " + numfmt.Pct(c/w)
	}
	return line
}
