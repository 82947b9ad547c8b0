package event

// Slab hands out one-event slices and one-ref causes from shared arrays:
// one allocation per SlabSize events instead of two per event, for a
// normalizer's most common events (text deltas), where those two small
// allocations were a large part of the normalizer's time. Each slice it
// returns has its length as its capacity, so a caller that appends to it
// gets a copy, and no element is ever handed out twice: the events and
// causes stay the caller's, as Normalizer.Line promises. The zero value is
// ready; a Slab is not safe for concurrent use.
type Slab struct {
	evs  []Event
	refs []int64
}

// SlabSize is how many events (and refs) one allocation of a Slab holds.
const SlabSize = 64

// One returns a slice holding just *ev.
func (s *Slab) One(ev *Event) []Event {
	if len(s.evs) == cap(s.evs) {
		s.evs = make([]Event, 0, SlabSize)
	}
	s.evs = append(s.evs, *ev)
	i := len(s.evs) - 1
	return s.evs[i : i+1 : i+1]
}

// Ref returns a slice holding just ref, for an event's Cause.
func (s *Slab) Ref(ref int64) []int64 {
	if len(s.refs) == cap(s.refs) {
		s.refs = make([]int64, 0, SlabSize)
	}
	s.refs = append(s.refs, ref)
	i := len(s.refs) - 1
	return s.refs[i : i+1 : i+1]
}
