package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// This file holds the ab section of latgate.yaml: how `latgate ab`
// schedules the two sides (the candidate config's section applies).

// AB is how `latgate ab` schedules its two sides.
type AB struct {
	// Schedule is ScheduleInterleave (a request of each side per block, the
	// default) or ScheduleBlocks (ABBA blocks of Block rounds a side: for a
	// server that holds one model at a time and reloads it on a switch).
	Schedule string
	// Block is the rounds a side per block under ScheduleBlocks.
	Block int
}

// The schedules of ab.schedule.
const (
	ScheduleInterleave = "interleave"
	ScheduleBlocks     = "blocks"
)

// MaxBlock bounds ab.block.
const MaxBlock = 1000

var (
	abSchedule = strField("schedule", ScheduleInterleave, ScheduleBlocks, func(s string) string {
		if s != ScheduleInterleave && s != ScheduleBlocks {
			return fmt.Sprintf("%q is not a schedule; use interleave (the default) or blocks", s)
		}
		return ""
	}, func(a *AB, s string) { a.Schedule = s })
	abBlock = intField("block", "10", 1, MaxBlock, "10", "", func(a *AB, x int64) { a.Block = int(x) })
)

var abFields = []field[AB]{abSchedule, abBlock}

func (p *parser) ab(n *yaml.Node) AB {
	a := defaults(abFields)
	if n == nil {
		return a
	}
	m, ok := p.mapping(n, "ab", keysOf(abFields))
	if !ok {
		return a
	}
	readFields(p, m, "ab", &a, abFields...)
	return a
}
