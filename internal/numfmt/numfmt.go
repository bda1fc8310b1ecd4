// Package numfmt formats the numbers latgate prints: changes as signed
// percentages and latencies in milliseconds. It is internal so the public
// packages (compare, report) can share it without promising it.
package numfmt

import (
	"fmt"
	"math"
)

// Pct formats a ratio as a signed whole-percent change: 1.38 → "+38%".
func Pct(r float64) string {
	v := math.Round((r - 1) * 100)
	if v == 0 {
		v = 0 // no "-0%"
	}
	return fmt.Sprintf("%+.0f%%", v)
}

// Pct1 formats a ratio as a signed percent change with one decimal:
// 1.203 → "+20.3%".
func Pct1(r float64) string {
	v := math.Round((r-1)*1000) / 10
	if v == 0 {
		v = 0 // no "-0.0%"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

// PctBeside formats r like Pct, but with one decimal when r and ref differ
// yet round to the same whole percent, so an interval bound just past the
// tolerance never prints as equal to it: "+25.4%" beside a "+25%" tolerance.
func PctBeside(r, ref float64) string {
	if r != ref && Pct(r) == Pct(ref) {
		v := math.Round((r-1)*1000) / 10
		if v == 0 {
			v = 0
		}
		return fmt.Sprintf("%+.1f%%", v)
	}
	return Pct(r)
}

// Millis formats milliseconds with precision that suits their size:
// "4.12 ms", "41.2 ms", "412 ms", "41.2 s"; "-" for NaN.
func Millis(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "-"
	case a >= 10000:
		return fmt.Sprintf("%.1f s", v/1000)
	case a >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case a >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}
