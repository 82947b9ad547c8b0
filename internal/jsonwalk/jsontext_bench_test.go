//go:build goexperiment.jsonv2

package jsonwalk_test

import (
	"bytes"
	"io"
	"testing"

	"encoding/json/jsontext"
)

// BenchmarkJSONText is BenchmarkWalk's work done with encoding/json/jsontext
// (GOEXPERIMENT=jsonv2 in Go 1.26), to compare: read every token, unquote
// every string.
func BenchmarkJSONText(b *testing.B) {
	ls, n := benchLines(b)
	var r bytes.Reader
	d := jsontext.NewDecoder(&r)
	sum := 0
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range ls {
			r.Reset(l)
			d.Reset(&r)
			for {
				tok, err := d.ReadToken()
				if err == io.EOF || err != nil {
					break
				}
				if tok.Kind() == '"' {
					sum += len(tok.String())
				}
			}
		}
	}
	_ = sum
}
