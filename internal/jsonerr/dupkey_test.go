package jsonerr

import "testing"

func TestDuplicateKey(t *testing.T) {
	tests := []struct {
		name, in string
		path     string
		line     int
		ok       bool
	}{
		{"none", `{"a":1,"b":[{"a":2},{"a":3}]}`, "", 0, false},
		{"top level", `{"a":1,` + "\n" + `"a":2}`, "a", 2, true},
		{"in array element", `{"t":[{"x":1},{"x":1,"y":{"z":1,"z":2}}]}`, "t[1].y.z", 1, true},
		{"after nested arrays", `{"t":[[1,2],[3]],"p":{"s":[{"ms":1,"ms":2}]}}`, "p.s[0].ms", 1, true},
		{"same key in siblings", `[{"a":1},{"a":2}]`, "", 0, false},
		{"invalid json", `{"a":1,`, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, line, ok := DuplicateKey([]byte(tt.in))
			if path != tt.path || line != tt.line || ok != tt.ok {
				t.Errorf("DuplicateKey = %q, %d, %v; want %q, %d, %v", path, line, ok, tt.path, tt.line, tt.ok)
			}
		})
	}
}
