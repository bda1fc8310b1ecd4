// Package trend owns the nightly analysis of latgate's run history: per
// target × prompt × gated check, the change points of the series (E-divisive
// means with a seeded permutation test), each with its date, commit and size
// with an interval; the drift of the recent runs from the blessed baseline;
// and a verdict. It is pure: history records and a spec in, values out;
// warnings are values, and only report writers print.
package trend
