//go:build race

package trend

// raceEnabled: the race detector makes the calibration ~10× slower; CI runs
// it in its own step without -race.
const raceEnabled = true
