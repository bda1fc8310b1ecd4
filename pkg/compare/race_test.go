//go:build race

package compare

// raceEnabled reports whether the race detector is on (it slows the
// calibration test tenfold).
const raceEnabled = true
