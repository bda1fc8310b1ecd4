// Package suggest owns "did you mean": the closest of a set of known names
// to a mistyped one, by edit distance, or nothing when none is close. The
// config loader uses it for unknown keys, the command line for unknown
// commands and flags.
package suggest

import "strings"

// Closest returns the candidate closest to s by Levenshtein distance, or ""
// if none is close: within max(2, len(s)/3) edits, and fewer edits than s
// has characters (so a one-letter typo never "suggests" an unrelated name).
// Case and the choice of '-' or '_' do not count as differences. Ties go to
// the earlier candidate.
func Closest(s string, candidates []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	best, bestD := "", -1
	for _, c := range candidates {
		d := Distance(norm(s), norm(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= max(2, len(s)/3) && bestD < len(s) {
		return best
	}
	return ""
}

// Distance is the optimal-string-alignment edit distance between a and b, in
// bytes: insertions, deletions, substitutions and transpositions of two
// adjacent characters ("chekc" is one edit from "check"), the commonest typo.
func Distance(a, b string) int {
	// rows i-2, i-1 and i of the dynamic-programming table
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
