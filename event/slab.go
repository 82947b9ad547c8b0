package event

// Slab hands out one-event slices and one-ref causes from shared arrays:
// one allocation per SlabSize events instead of two per event, for a
// normalizer's most common events (text deltas), where those two small
// allocations were a large part of the normalizer's time. Each slice it
// returns has its length as its capacity, so a caller that appends to it
// gets a copy, and no element is ever handed out twice (until Reset): the
// events and causes stay the caller's, as Normalizer.Line promises. The
// zero value is ready; a Slab is not safe for concurrent use.
type Slab struct {
	evs  []Event
	refs []int64
	// evBlocks and refBlocks are the arrays handed out from since the
	// last Reset, kept for the next round; nil until Reset is first used.
	evBlocks  [][]Event
	refBlocks [][]int64
	// nev and nref count the arrays of this round (the current one
	// included).
	nev, nref int
	reuse     bool
}

// SlabSize is how many events (and refs) one allocation of a Slab holds.
const SlabSize = 64

// One returns a slice holding just *ev.
func (s *Slab) One(ev *Event) []Event {
	if len(s.evs) == cap(s.evs) {
		s.evs = s.nextEvs()
	}
	s.evs = append(s.evs, *ev)
	i := len(s.evs) - 1
	return s.evs[i : i+1 : i+1]
}

// Ref returns a slice holding just ref, for an event's Cause.
func (s *Slab) Ref(ref int64) []int64 {
	if len(s.refs) == cap(s.refs) {
		s.refs = s.nextRefs()
	}
	s.refs = append(s.refs, ref)
	i := len(s.refs) - 1
	return s.refs[i : i+1 : i+1]
}

// Refs returns a copy of refs, for the Cause of an event gathered from
// many lines (a completed block): from the shared arrays when it fits in
// one, else a slice of its own.
func (s *Slab) Refs(refs []int64) []int64 {
	if len(refs) > SlabSize {
		return append(make([]int64, 0, len(refs)), refs...)
	}
	if cap(s.refs)-len(s.refs) < len(refs) {
		s.refs = s.nextRefs()
	}
	i := len(s.refs)
	s.refs = append(s.refs, refs...)
	return s.refs[i:len(s.refs):len(s.refs)]
}

func (s *Slab) nextEvs() []Event {
	if !s.reuse {
		return make([]Event, 0, SlabSize)
	}
	if s.nev == len(s.evBlocks) {
		s.evBlocks = append(s.evBlocks, make([]Event, 0, SlabSize))
	}
	s.nev++
	return s.evBlocks[s.nev-1][:0]
}

func (s *Slab) nextRefs() []int64 {
	if !s.reuse {
		return make([]int64, 0, SlabSize)
	}
	if s.nref == len(s.refBlocks) {
		s.refBlocks = append(s.refBlocks, make([]int64, 0, SlabSize))
	}
	s.nref++
	return s.refBlocks[s.nref-1][:0]
}

// Reset makes s hand out its arrays again from the start: for a caller
// that is done with every event and cause s has handed out (they will
// change), such as a pipeline whose batch of events has been written. A
// Slab that is Reset keeps the arrays it hands out for the next round,
// so that the same memory serves every round instead of fresh memory.
func (s *Slab) Reset() {
	if s.reuse && s.nev > 0 {
		// Drop what the old events pointed to, and only those: every
		// array but the current one was filled, the current one up to
		// len(s.evs). A caller that resets after each line uses one
		// event of an array, and clearing all SlabSize of them (328
		// bytes each, with write barriers while the collector runs) was
		// 5 % of record's time.
		for _, b := range s.evBlocks[:s.nev-1] {
			clear(b[:cap(b)])
		}
		clear(s.evs)
	}
	s.reuse = true
	s.evs, s.refs = nil, nil
	s.nev, s.nref = 0, 0
}
