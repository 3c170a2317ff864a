// Package niah will generate RULER-style needle-in-a-haystack tasks and score them. Not implemented yet:
// issue 6 brings it.
package niah
