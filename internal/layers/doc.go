// Package layers holds only a test: the import-direction rule of
// docs/STYLE.md, checked with go list so it stays true as packages grow.
package layers
