package view_test

import (
	"os"
	"testing"
)

// TestBrowserNativeOutLane opens the report of a capture that holds what
// the integration sent to the agent: native_out gets a lane of its own
// between native_in and normalized_out. The capture is a real Claude Code
// 2.1.197 session driven by the official Agent SDK 0.3.332 (initialize
// handshake, user message, a can_use_tool answer, end of input), recorded
// through evcap shim and sanitized.
func TestBrowserNativeOutLane(t *testing.T) {
	capture, err := os.ReadFile("testdata/claude-sdk-permission.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := open(t, capture, "synthetic native_out")
	if got := p.evalString(`[...document.querySelectorAll('.lane-name')].map(e => e.textContent).join(',')`); got != "native_in,native_out,normalized_out,legacy_out" {
		t.Errorf("lanes %q", got)
	}
	if n := p.evalInt(`document.querySelectorAll('.row[data-stage="native_out"]').length`); n != 4 {
		t.Errorf("%d native_out rows, want 4", n)
	}
	var xs []float64
	p.eval(`['native_in','native_out','normalized_out'].map(s => document.querySelector('.row[data-stage="'+s+'"] .card').getBoundingClientRect().left)`, &xs)
	if len(xs) != 3 || !(xs[0] < xs[1] && xs[1] < xs[2]) {
		t.Errorf("card x positions by lane: %v", xs)
	}
	if got := p.evalString(`document.querySelector('.row[data-stage="native_out"] .card').textContent`); got == "" {
		t.Error("the first native_out card is empty")
	}
	p.noNetwork()
}
