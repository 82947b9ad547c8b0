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
