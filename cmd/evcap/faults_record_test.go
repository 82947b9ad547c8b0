package main

import (
	"io"
	"time"

	"github.com/evcap/evcap/record"
)

// recordStream records r as evcap record --stdin does, with the clock now,
// into path, and returns the capture's path.
func recordStream(r io.Reader, path string, now func() time.Time) (string, error) {
	res, err := record.Stream(r, record.Options{Provider: "claude", NewNormalizer: newNormalizer, Output: path, Now: now})
	return res.Path, err
}
