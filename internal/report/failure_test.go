package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestJUnitFailure(t *testing.T) {
	var buf bytes.Buffer
	msg := `target "t": error budget exceeded <&> "quoted"`
	if err := JUnitFailure(&buf, msg); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Errors int `xml:"errors,attr"`
		Suites []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("does not parse: %v\n%s", err, buf.String())
	}
	if doc.Errors != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 {
		t.Fatalf("want 1 suite with 1 errored case, got %+v", doc)
	}
	if c := doc.Suites[0].Cases[0]; c.Error == nil || c.Error.Message != msg {
		t.Errorf("error message = %+v, want %q", c.Error, msg)
	}
}

func TestMarkdownFailure(t *testing.T) {
	var buf bytes.Buffer
	if err := MarkdownFailure(&buf, "no baseline at x"); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "ERROR") || !strings.Contains(got, "no baseline at x") {
		t.Errorf("MarkdownFailure = %q", got)
	}
}
