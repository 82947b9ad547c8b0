//go:build !unix

package record

import "os"

// replaceOutput is the unix fast path; elsewhere an open file's name
// cannot be removed, so the caller truncates.
func replaceOutput(string) (*os.File, <-chan struct{}, bool) { return nil, nil, false }
