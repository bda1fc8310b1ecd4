package baseline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// Rounding of every float in an encoded baseline.
const (
	msScale    = 1e3 // durations: 3 decimals of a millisecond (microseconds)
	rateScale  = 1e2 // tokens per second: 2 decimals
	ratioScale = 1e6 // error rates and temperatures: 6 decimals
)

// Encode returns the canonical bytes of f: the same data always gives the
// same bytes, and a change to a few samples changes a few lines.
//
// The canonical form is indented JSON (two spaces) with a trailing newline,
// except that each sample is one line. Targets and prompts keep their order
// (config order), samples are sorted by seq, map keys are sorted, returned
// models and system fingerprints are sorted, durations are rounded to 0.001 ms,
// tokens per second to 0.01 and ratios to 1e-6, no number uses exponent
// notation, blessed_at is UTC with second precision, the schema is Schema and
// failure records and solo probes (results.Prompt.Solo) are dropped. f is
// not modified. Encode fails on a NaN or infinite value, naming where it is.
func Encode(f *File) ([]byte, error) {
	c, err := canonical(f)
	if err != nil {
		return nil, fmt.Errorf("encode baseline: %w", err)
	}
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode baseline: %w", err)
	}
	out, err := layout(compact.Bytes())
	if err != nil {
		return nil, fmt.Errorf("encode baseline: %w", err)
	}
	return out, nil
}

// canonical returns a rounded, sorted deep copy of f.
func canonical(f *File) (*File, error) {
	c := *f
	c.Schema = Schema
	c.BlessedAt = f.BlessedAt.UTC().Truncate(time.Second)
	var r rounder
	c.Run.TimeoutMS = r.round("run.timeout_ms", c.Run.TimeoutMS, msScale)
	c.Targets = make([]results.Target, len(f.Targets))
	for i, t := range f.Targets {
		t = cloneTarget(t)
		r.target, r.prompt, r.seq = t.Name, "", -1
		slices.Sort(t.ReturnedModels)
		t.ReturnedModels = slices.Compact(t.ReturnedModels)
		slices.Sort(t.SystemFingerprints)
		t.SystemFingerprints = slices.Compact(t.SystemFingerprints)
		t.ErrorRate = r.round("error_rate", t.ErrorRate, ratioScale)
		if t.Params.Temperature != nil {
			*t.Params.Temperature = r.round("params.temperature", *t.Params.Temperature, ratioScale)
		}
		for j := range t.Prompts {
			r.prompt = t.Prompts[j].ID
			r.roundPrompt(&t.Prompts[j])
		}
		r.prompt = "overall"
		r.roundPrompt(&t.Overall)
		c.Targets[i] = t
	}
	if r.err != nil {
		return nil, r.err
	}
	return &c, nil
}

// rounder rounds floats in place and records the first non-finite one with
// where it was found.
type rounder struct {
	target, prompt string
	seq            int // -1 outside a sample
	err            error
}

func (r *rounder) roundPrompt(p *results.Prompt) {
	r.seq = -1
	m := &p.Metrics
	for _, s := range []*results.Summary{m.TTFB, m.TTFT, m.TTFCT, m.ITL, m.TPOT, m.Total, m.MaxStall, m.ChainTotal, m.ChainTTFTLast} {
		if s != nil {
			s.P50 = r.round("p50_ms", s.P50, msScale)
			s.P95 = r.round("p95_ms", s.P95, msScale)
			s.P99 = r.round("p99_ms", s.P99, msScale)
			s.Mean = r.round("mean_ms", s.Mean, msScale)
			s.Min = r.round("min_ms", s.Min, msScale)
			s.Max = r.round("max_ms", s.Max, msScale)
		}
	}
	if s := m.TokensPerS; s != nil {
		s.P50 = r.round("tokens_per_s.p50", s.P50, rateScale)
		s.P95 = r.round("tokens_per_s.p95", s.P95, rateScale)
		s.P99 = r.round("tokens_per_s.p99", s.P99, rateScale)
		s.Mean = r.round("tokens_per_s.mean", s.Mean, rateScale)
		s.Min = r.round("tokens_per_s.min", s.Min, rateScale)
		s.Max = r.round("tokens_per_s.max", s.Max, rateScale)
	}
	slices.SortStableFunc(p.Samples, func(a, b results.Sample) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := range p.Samples {
		s := &p.Samples[i]
		r.seq = s.Seq
		s.AtMS = r.round("at_ms", s.AtMS, msScale)
		s.TTFB = r.round("ttfb_ms", s.TTFB, msScale)
		s.TTFT = r.round("ttft_ms", s.TTFT, msScale)
		s.TTFCT = r.round("ttfct_ms", s.TTFCT, msScale)
		s.Total = r.round("total_ms", s.Total, msScale)
		s.TPOT = r.round("tpot_ms", s.TPOT, msScale)
		s.MaxStall = r.round("max_stall_ms", s.MaxStall, msScale)
		for k := range s.ITL {
			s.ITL[k] = r.round("itl_ms", s.ITL[k], msScale)
		}
		s.TokensPerS = r.round("tokens_per_s", s.TokensPerS, rateScale)
		s.DNS = r.round("dns_ms", s.DNS, msScale)
		s.Connect = r.round("connect_ms", s.Connect, msScale)
		s.TLS = r.round("tls_ms", s.TLS, msScale)
		s.ChainTotal = r.round("chain_total_ms", s.ChainTotal, msScale)
		s.ChainTTFTLast = r.round("chain_ttft_last_ms", s.ChainTTFTLast, msScale)
		s.LateMS = r.round("late_ms", s.LateMS, msScale)
		s.QueueMS = r.round("queue_ms", s.QueueMS, msScale)
		for k := range s.Steps {
			st := &s.Steps[k]
			st.StartMS = r.round("steps.start_ms", st.StartMS, msScale)
			st.TTFT = r.round("steps.ttft_ms", st.TTFT, msScale)
			st.Total = r.round("steps.total_ms", st.Total, msScale)
		}
	}
	r.seq = -1
}

// round rounds v to the nearest multiple of 1/scale. It never returns −0.
func (r *rounder) round(field string, v, scale float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if r.err == nil {
			where := ""
			if r.target != "" {
				where = "target " + r.target + ": "
			}
			if r.prompt != "" {
				where += "prompt " + r.prompt + ": "
			}
			if r.seq >= 0 {
				where += "sample " + strconv.Itoa(r.seq) + ": "
			}
			r.err = fmt.Errorf("%s%s is %v", where, field, v)
		}
		return v
	}
	if math.Abs(v) >= 1e15 { // already coarser than 1/scale
		return v
	}
	v = math.Round(v*scale) / scale
	if v == 0 {
		return 0
	}
	return v
}

// layout re-indents compact JSON: two-space indentation, except that each
// element of a "samples" array is written compactly on one line, and numbers
// never use exponent notation. It adds a trailing newline.
func layout(compact []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(compact))
	dec.UseNumber()
	p := &printer{dec: dec}
	p.str = json.NewEncoder(&p.scratch)
	p.str.SetEscapeHTML(false)
	if err := p.value("", "", false); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("layout: trailing data")
	}
	p.out.WriteByte('\n')
	return p.out.Bytes(), nil
}

type printer struct {
	dec     *json.Decoder
	out     bytes.Buffer
	scratch bytes.Buffer
	str     *json.Encoder // encodes strings into scratch
}

// value prints the next value. key is the object key it belongs to ("" in an
// array or at the top); oneLine prints it compactly.
func (p *printer) value(indent, key string, oneLine bool) error {
	tok, err := p.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return p.object(indent, oneLine)
		case '[':
			return p.array(indent, key == "samples", oneLine)
		}
		return fmt.Errorf("layout: unexpected %v", t)
	case string:
		return p.string(t)
	case json.Number:
		s := t.String()
		if strings.ContainsAny(s, "eE") {
			v, err := t.Float64()
			if err != nil {
				return err
			}
			s = strconv.FormatFloat(v, 'f', -1, 64)
		}
		p.out.WriteString(s)
	case bool:
		p.out.WriteString(strconv.FormatBool(t))
	case nil:
		p.out.WriteString("null")
	default:
		return fmt.Errorf("layout: unexpected token %v", t)
	}
	return nil
}

func (p *printer) object(indent string, oneLine bool) error {
	p.out.WriteByte('{')
	inner := indent + "  "
	n := 0
	for ; p.dec.More(); n++ {
		tok, err := p.dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("layout: object key %v", tok)
		}
		if n > 0 {
			p.out.WriteByte(',')
		}
		p.newline(inner, oneLine)
		if err := p.string(key); err != nil {
			return err
		}
		p.out.WriteByte(':')
		if !oneLine {
			p.out.WriteByte(' ')
		}
		if err := p.value(inner, key, oneLine); err != nil {
			return err
		}
	}
	if n > 0 {
		p.newline(indent, oneLine)
	}
	p.out.WriteByte('}')
	_, err := p.dec.Token() // '}'
	return err
}

// array prints an array; with oneLineElems each element gets a line of its own.
func (p *printer) array(indent string, oneLineElems, oneLine bool) error {
	p.out.WriteByte('[')
	inner := indent + "  "
	n := 0
	for ; p.dec.More(); n++ {
		if n > 0 {
			p.out.WriteByte(',')
		}
		p.newline(inner, oneLine)
		if err := p.value(inner, "", oneLine || oneLineElems); err != nil {
			return err
		}
	}
	if n > 0 {
		p.newline(indent, oneLine)
	}
	p.out.WriteByte(']')
	_, err := p.dec.Token() // ']'
	return err
}

func (p *printer) newline(indent string, oneLine bool) {
	if !oneLine {
		p.out.WriteByte('\n')
		p.out.WriteString(indent)
	}
}

func (p *printer) string(s string) error {
	p.scratch.Reset()
	if err := p.str.Encode(s); err != nil {
		return err
	}
	p.out.Write(bytes.TrimSuffix(p.scratch.Bytes(), []byte("\n")))
	return nil
}
