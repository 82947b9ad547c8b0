package main

import (
	"strings"
	"testing"
	"testing/iotest"
)

// TestCountIn: occurrences across read seams (one byte per read) are
// counted once each, as bytes.Count would on the whole text.
func TestCountIn(t *testing.T) {
	text := strings.Repeat("x [REDACTED:a] y", 5) + "[REDACTED:" + strings.Repeat("z", 70000) + "[REDACTED:b]"
	want := strings.Count(text, "[REDACTED:")
	for name, r := range map[string]func() any{
		"whole":    func() any { return strings.NewReader(text) },
		"one byte": func() any { return iotest.OneByteReader(strings.NewReader(text)) },
	} {
		got, err := countIn(r().(interface{ Read([]byte) (int, error) }), []byte("[REDACTED:"))
		if err != nil || got != want {
			t.Errorf("%s: countIn = %d, %v; want %d", name, got, err, want)
		}
	}
}
