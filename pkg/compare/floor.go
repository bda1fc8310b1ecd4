package compare

// Bound is the threshold an interval bound is judged against: the tolerance,
// or its mirror for an improvement.
func (c Check) Bound() float64 {
	if c.Verdict == Improved && c.Threshold > 0 {
		return 1 / c.Threshold
	}
	return c.Threshold
}

// FloorSets reports whether the check's absolute floor, rather than its
// relative tolerance, sets its threshold, and the floor in its unit: "ms"
// for a duration, "tokens/s" for tokens_per_s (whose threshold the floor
// sets when floor/(baseline − floor) exceeds the relative tolerance).
func (c Check) FloorSets() (floor float64, unit string, sets bool) {
	if c.Baseline <= 0 {
		return 0, "", false
	}
	if c.higherIsBetter() {
		f := c.Tolerance.FloorRate
		return f, "tokens/s", f > 0 && (f >= c.Baseline || f/(c.Baseline-f) > c.Tolerance.Rel)
	}
	f := floorMS(c.Tolerance)
	return f, "ms", f/c.Baseline > c.Tolerance.Rel
}
