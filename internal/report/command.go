package report

import (
	"fmt"
	"io"
)

// Command writes one GitHub workflow command of level "error", "warning" or
// "notice" with title and msg escaped as every annotation of this package
// is. msg is one annotation's text: latgate's words, not the endpoint's.
func Command(w io.Writer, level, title, msg string) error {
	_, err := fmt.Fprintf(w, "::%s title=%s::%s\n", level, escapeProperty(title), escapeData(msg))
	return err
}
