package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// Stats is one metric's summary in a run: the number of values and, by
// statistic, every statistic a gate can check (stats.Named: p50, p90, p95,
// p99, mean), in milliseconds (tokens per second for tokens_per_s). A
// statistic that is absent was not recorded: records written before latgate
// kept p90 have no p90, which is "no data", not zero.
//
// In a record it is one flat JSON object: {"n":60,"p50":120.5,"p90":…}; Get
// reads a statistic, MakeStats and Summarize make one.
type Stats struct {
	N int
	// v holds the value of named[i] at i when bit i of has is set: a record
	// holds tens of thousands of summaries, and a map each made reading a
	// history twice as slow.
	v   [maxRecorded]float64
	has uint16
}

// maxRecorded bounds len(stats.Named()).
const maxRecorded = 16

// Get returns the statistic s and whether the record has it.
func (st Stats) Get(s stats.Stat) (float64, bool) {
	for i, n := range named {
		if n == s {
			return st.v[i], st.has&(1<<i) != 0
		}
	}
	return math.NaN(), false
}

// set stores the value of named[i].
func (st *Stats) set(i int, v float64) {
	st.v[i] = v
	st.has |= 1 << i
}

// Equal reports whether two summaries hold the same count and statistics
// (go-cmp uses it).
func (st Stats) Equal(o Stats) bool {
	if st.N != o.N || st.has != o.has {
		return false
	}
	for i := range named {
		if st.has&(1<<i) != 0 && st.v[i] != o.v[i] {
			return false
		}
	}
	return true
}

// All returns the statistics the summary holds, in stats.Named order.
func (st Stats) All() []stats.Stat {
	var out []stats.Stat
	for i, s := range named {
		if st.has&(1<<i) != 0 {
			out = append(out, s)
		}
	}
	return out
}

// named is stats.Named parsed: the statistics a record keeps, in the order
// it writes them.
var named = func() []stats.Stat {
	var out []stats.Stat
	for _, n := range stats.Named() {
		s, err := stats.ParseStat(n)
		if err != nil {
			panic(err)
		}
		out = append(out, s)
	}
	if len(out) > maxRecorded {
		panic("history: raise maxRecorded to hold every statistic of stats.Named")
	}
	return out
}()

// Summarize returns the summary of metric over samples as a record keeps it:
// n and every recorded statistic, computed as the gate computes them
// (stats.Stat.Of), rounded to the microsecond (to 0.001 tokens/s for a
// rate). ok is false when no sample has the metric.
func Summarize(samples []results.Sample, metric string) (Stats, bool) {
	vals := results.Values(samples, metric)
	if len(vals) == 0 {
		return Stats{}, false
	}
	slices.Sort(vals)
	st := Stats{N: len(vals)}
	for i, s := range named {
		st.set(i, round(s.Of(vals)))
	}
	return st, true
}

// fromSummary is the summary of a results file without samples: the
// statistics its Summary holds (no p90).
func fromSummary(s *results.Summary) Stats {
	st := Stats{N: s.N}
	for _, kv := range []struct {
		name string
		v    float64
	}{{"p50", s.P50}, {"p95", s.P95}, {"p99", s.P99}, {"mean", s.Mean}} {
		st.set(byName[kv.name], round(kv.v))
	}
	return st
}

// MarshalJSON writes {"n":…} and then the statistics in stats.Named order
// (deterministic bytes).
func (st Stats) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"n":`)
	b.WriteString(strconv.Itoa(st.N))
	for i, s := range named {
		if st.has&(1<<i) == 0 {
			continue
		}
		v := st.v[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s is %v: not a number a record can hold", s, v)
		}
		b.WriteString(`,"` + s.String() + `":`)
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the flat object. Keys other than "n" and the recorded
// statistics (a newer latgate's) are ignored; a null statistic is absent.
//
// It scans the object itself rather than through encoding/json (a history
// holds tens of thousands of these, and a second reflective pass over each
// doubled the time to read one): encoding/json has already checked that
// the bytes are valid JSON, so the scanner only has to find the members.
func (st *Stats) UnmarshalJSON(data []byte) error {
	sc := scanner{b: data}
	sc.space()
	if !sc.eat('{') {
		return errors.New("a metric's summary must be a JSON object")
	}
	var out Stats
	for {
		sc.space()
		if sc.eat('}') {
			break
		}
		sc.eat(',')
		sc.space()
		key, err := sc.key()
		if err != nil {
			return err
		}
		sc.space()
		sc.eat(':')
		sc.space()
		val := sc.value()
		if key == "n" {
			n, err := strconv.Atoi(string(val))
			if err != nil {
				return fmt.Errorf(`"n": %s is not a count`, clipBytes(val))
			}
			out.N = n
			continue
		}
		i, ok := byName[key]
		if !ok {
			continue
		}
		if string(val) == "null" {
			out.has &^= 1 << i
			continue
		}
		if len(val) == 0 || !(val[0] == '-' || val[0] >= '0' && val[0] <= '9') {
			return fmt.Errorf("%q: %s is not a number", key, clipBytes(val))
		}
		v, err := strconv.ParseFloat(string(val), 64)
		if err != nil { // out of float64's range
			return fmt.Errorf("%q: %s is not a number a record can hold", key, clipBytes(val))
		}
		out.set(i, v)
	}
	*st = out
	return nil
}

// byName maps each recorded statistic's name to its index in named.
var byName = func() map[string]int {
	m := make(map[string]int, len(named))
	for i, s := range named {
		m[s.String()] = i
	}
	return m
}()

// scanner walks valid JSON (encoding/json checked it before calling
// UnmarshalJSON).
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// key reads a member name.
func (s *scanner) key() (string, error) {
	tok := s.value()
	if len(tok) < 2 || tok[0] != '"' {
		return "", errors.New("a metric's summary has a member without a name")
	}
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1]), nil
	}
	var k string
	err := json.Unmarshal(tok, &k)
	return k, err
}

// value returns the bytes of the value at the cursor and moves past it.
func (s *scanner) value() []byte {
	start := s.i
	depth, inStr := 0, false
	for ; s.i < len(s.b); s.i++ {
		c := s.b[s.i]
		switch {
		case inStr:
			if c == '\\' {
				s.i++
			} else if c == '"' {
				inStr = false
				if depth == 0 {
					s.i++
					return s.b[start:s.i]
				}
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return s.b[start:s.i]
			}
			depth--
			if depth == 0 {
				s.i++
				return s.b[start:s.i]
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return s.b[start:s.i]
		}
	}
	return s.b[start:s.i]
}

func clipBytes(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// MakeStats returns the summary of n values with the statistics given by
// name ({"p50": 120.5, "p95": 180}), for records written by hand (tests,
// examples). It panics on a name stats.ParseStat refuses.
func MakeStats(n int, byName map[string]float64) Stats {
	st := Stats{N: n}
	for name, v := range byName {
		i, ok := indexOf(name)
		if !ok {
			panic("history: " + name + " is not a statistic a record keeps")
		}
		st.set(i, v)
	}
	return st
}

func indexOf(name string) (int, bool) {
	s, err := stats.ParseStat(name)
	if err != nil {
		return 0, false
	}
	for i, n := range named {
		if n == s {
			return i, true
		}
	}
	return 0, false
}
