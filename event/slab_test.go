package event_test

import (
	"testing"

	"github.com/evcap/evcap/event"
)

// TestSlab: every slice a Slab hands out holds what was given, keeps it
// when later ones are handed out, and is never shared: appending to one
// does not change another.
func TestSlab(t *testing.T) {
	var s event.Slab
	var evs [][]event.Event
	var refs [][]int64
	for i := range 3*event.SlabSize + 5 {
		evs = append(evs, s.One(&event.Event{Kind: event.KindText, Text: string(rune('a' + i%26))}))
		refs = append(refs, s.Ref(int64(i)))
	}
	grown := append(evs[0], event.Event{Kind: event.KindUnknown})
	grownRefs := append(refs[0], -1)
	for i := range evs {
		if len(evs[i]) != 1 || cap(evs[i]) != 1 || evs[i][0].Text != string(rune('a'+i%26)) {
			t.Fatalf("event slice %d: %+v (cap %d)", i, evs[i], cap(evs[i]))
		}
		if len(refs[i]) != 1 || cap(refs[i]) != 1 || refs[i][0] != int64(i) {
			t.Fatalf("ref slice %d: %v (cap %d)", i, refs[i], cap(refs[i]))
		}
	}
	if len(grown) != 2 || evs[1][0].Kind != event.KindText || len(grownRefs) != 2 || refs[1][0] != 1 {
		t.Fatal("appending to a handed-out slice changed the next one")
	}
}

// TestSlabReset: after Reset a Slab hands out the arrays of the round
// before again (no new memory once the rounds are as large as the
// first), each slice holding what it was given in this round.
func TestSlabReset(t *testing.T) {
	var s event.Slab
	s.Reset()
	var first []*event.Event
	for round := range 3 {
		for i := range 2*event.SlabSize + 3 {
			ev := s.One(&event.Event{Kind: event.KindText, Text: string(rune('a' + (i+round)%26))})
			ref := s.Ref(int64(i + round))
			if ev[0].Text != string(rune('a'+(i+round)%26)) || ref[0] != int64(i+round) || cap(ev) != 1 || cap(ref) != 1 {
				t.Fatalf("round %d, slice %d: %+v, %v", round, i, ev, ref)
			}
			if round == 0 {
				first = append(first, &ev[0])
			} else if &ev[0] != first[i] {
				t.Fatalf("round %d, slice %d: new memory, not the first round's", round, i)
			}
		}
		s.Reset()
		for i, ev := range first {
			if ev.Text != "" {
				t.Fatalf("round %d: Reset left old event %d in place: %+v", round, i, *ev)
			}
		}
	}
	// Rounds of different lengths: a short round after a long one clears
	// what it used, and what the long round left was cleared before.
	for _, n := range []int{1, 2*event.SlabSize + 3, 5, event.SlabSize, 0, event.SlabSize + 1} {
		for range n {
			s.One(&event.Event{Text: "x"})
		}
		s.Reset()
		for i, ev := range first {
			if ev.Text != "" {
				t.Fatalf("after a round of %d: old event %d still set: %+v", n, i, *ev)
			}
		}
	}
	if allocs := testing.AllocsPerRun(10, func() {
		for range 2*event.SlabSize + 3 {
			s.One(&event.Event{Kind: event.KindText})
			s.Ref(1)
		}
		s.Reset()
	}); allocs != 0 {
		t.Errorf("%v allocations a round after the first", allocs)
	}
}

// TestSlabRefs: Refs copies causes of any length, between single refs
// and across the end of a shared array, and no copy shares memory with
// the slice given or with another copy.
func TestSlabRefs(t *testing.T) {
	var s event.Slab
	src := make([]int64, 0, 2*event.SlabSize)
	var got [][]int64
	var want [][]int64
	for i := range 3 * event.SlabSize {
		n := i % (event.SlabSize + 9) // lengths 0 to SlabSize+8: some longer than an array
		src = src[:0]
		for j := range n {
			src = append(src, int64(i*1000+j))
		}
		got = append(got, s.Refs(src))
		want = append(want, append([]int64(nil), src...))
		s.Ref(-1)        // single refs between
		src[0:1][0] = -2 // the caller's slice changes after the copy
	}
	for i := range got {
		if len(got[i]) != len(want[i]) || cap(got[i]) != len(got[i]) {
			t.Fatalf("copy %d: len %d cap %d, want len %d = cap", i, len(got[i]), cap(got[i]), len(want[i]))
		}
		for j := range got[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("copy %d: %v, want %v", i, got[i], want[i])
			}
		}
	}
	if g := append(got[5], 7); len(got[6]) > 0 && got[6][0] == 7 || len(g) != len(got[5])+1 {
		t.Fatal("appending to one copy changed the next")
	}
}
