package jsonerr

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// DuplicateKey returns the path (e.g. "targets[0].prompts[1].samples") and
// the 1-based line of the first object key that appears twice in the same
// object of data, and ok. encoding/json keeps the last of two equal keys
// silently, so an edited file could say one thing to a reader and another to
// latgate. data must be valid JSON; on a syntax error it reports nothing (the
// decoder reports that).
func DuplicateKey(data []byte) (path string, line int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   map[string]bool
		index  int    // next array index
		key    string // current object key
		want   bool   // expecting a key (object) next
		prefix string
	}
	var stack []*frame
	elemPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			if f.prefix == "" {
				return f.key
			}
			return f.prefix + "." + f.key
		}
		return f.prefix + "[" + strconv.Itoa(f.index) + "]"
	}
	// valueDone advances the enclosing container after a value ends.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.want = true
		} else {
			f.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", 0, false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.want {
			if d, isDelim := tok.(json.Delim); isDelim && d == '}' {
				stack = stack[:len(stack)-1]
				valueDone()
				if len(stack) == 0 {
					return "", 0, false
				}
				continue
			}
			k, _ := tok.(string)
			if top.keys[k] {
				off := dec.InputOffset()
				return joinKey(top.prefix, k), 1 + bytes.Count(data[:off], []byte("\n")), true
			}
			top.keys[k] = true
			top.key, top.want = k, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, want: true, prefix: elemPath()})
		case json.Delim('['):
			stack = append(stack, &frame{prefix: elemPath()})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
			if len(stack) == 0 {
				return "", 0, false
			}
		default:
			valueDone()
			if len(stack) == 0 {
				return "", 0, false
			}
		}
	}
}

func joinKey(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}
