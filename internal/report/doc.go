// Package report owns every rendering of latgate's values for people and
// tools: the text tables on stdout, Markdown, JUnit XML (go-junit-report's
// junit package), the GitHub job summary and workflow annotations. Writers
// take an io.Writer and values; they never measure, compare or exit.
package report
