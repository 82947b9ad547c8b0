package sanitize

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/evcap/evcap/redact"
)

// TestPrefetchWindowBound hands Prefetch 2 MiB of lines at once (400 KiB
// under the race detector) and
// checks that the helpers redact at most PrefetchWindow bytes of them
// ahead of Push (each keeps a redacted copy until pushed), that they do
// reach the window, and that Push releases what it releases without
// Prefetch.
func TestPrefetchWindowBound(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("Prefetch runs no helper on one core")
	}
	red, err := redact.New(redact.Options{Home: "/home/dev", Project: "/home/dev/src/app"})
	if err != nil {
		t.Fatal(err)
	}
	n := 2000 // 2 MiB of lines
	if raceEnabled {
		n = 400 // still more than the window
	}
	var ls [][]byte
	for i := range n {
		pad := bytes.Repeat([]byte("x"), 1000)
		if i%7 == 0 {
			copy(pad, "/home/dev/src/app/main.go ")
		}
		ls = append(ls, fmt.Appendf(nil, `{"type":"user","n":%d,"text":"%s"}`, i, pad))
	}
	var want [][]byte
	plain := NewLineRedactor(red, LineOptions{Provider: "claude"})
	for _, l := range ls {
		for _, rl := range plain.Push(l) {
			want = append(want, bytes.Clone(rl.Line))
		}
	}
	for _, rl := range plain.Flush() {
		want = append(want, bytes.Clone(rl.Line))
	}

	lr := NewLineRedactor(red, LineOptions{Provider: "claude"})
	lr.Prefetch(ls)
	pf := lr.pf
	if pf == nil {
		t.Fatal("Prefetch started nothing")
	}
	// The helpers run ahead until the window stops them.
	deadline := time.Now().Add(5 * time.Second)
	for pf.waiting.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if pf.waiting.Load() == 0 {
		t.Fatal("the helpers never waited for the window")
	}
	if a := pf.ahead.Load(); a > PrefetchWindow || a < PrefetchWindow-2*int64(len(ls[0])) {
		t.Fatalf("redacted %d bytes ahead of Push, want at most %d and close to it", a, PrefetchWindow)
	}
	var got [][]byte
	for _, l := range ls {
		for _, rl := range lr.Push(l) {
			got = append(got, bytes.Clone(rl.Line))
		}
		if a := pf.ahead.Load(); a > PrefetchWindow {
			t.Fatalf("redacted %d bytes ahead of Push, over %d", a, PrefetchWindow)
		}
	}
	lr.EndPrefetch()
	for _, rl := range lr.Flush() {
		got = append(got, bytes.Clone(rl.Line))
	}
	if len(got) != len(want) {
		t.Fatalf("released %d lines with Prefetch, %d without", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("line %d differs with Prefetch:\n%s\nwithout:\n%s", i, got[i], want[i])
		}
	}
}
