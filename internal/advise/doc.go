// Package advise holds what latgate tells a user beside a verdict, from a
// baseline: the limit past which one request is slow enough to be a
// regression rather than a broken endpoint (SlowLimits, Slowed), and when
// an endpoint has improved so far that its baseline no longer describes
// it (Rebless). It reads compare's types and decides nothing compare
// decides; internal/app acts on it and internal/report words it.
package advise
