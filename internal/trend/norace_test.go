//go:build !race

package trend

const raceEnabled = false
