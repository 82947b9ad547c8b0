package redact

import (
	"bytes"
	"hash/maphash"
)

// A stream's lines repeat most of their short strings: every Claude
// stream_event line names the same session, the same event and delta
// types and the same keys. A string's search (findSpansAt past
// wholeValue) depends on its text alone, and so do a key's normal form
// and credentialName, so a walk remembers the short texts it searched and
// found nothing in, and does not search them again. A text is remembered only when it is seen a second time (a
// table of hashes says which were seen once), so that the unique strings
// of each line (its uuid, its delta) cost a hash, not a copy.
//
// Long texts repeat too, further apart: a Claude tool result holds its
// output twice (message content and tool_use_result), and a capture holds
// it again in its normalized_out and legacy_out records. A long text's
// spans are remembered with it (clean or not: past wholeValue they depend
// on its text alone), so that a copy costs a hash and a compare instead
// of a search.

// cleanMemo holds the short texts a Redactor's search found nothing in.
type cleanMemo struct {
	owner *Redactor // the memo is of this Redactor's rules
	// seed is random, so which texts share a slot of seen differs from
	// run to run; that changes only which texts are remembered, never
	// what a walk outputs (only clean texts are).
	seed maphash.Seed
	seen [memoSeen]uint64 // hashes of texts searched once, by hash
	// keys maps a clean key's text to what the walk makes of it; values
	// holds clean string values.
	keys   map[string]memoKey
	values map[string]struct{}
	// long holds long texts and their spans, one per slot, by hash.
	long [longMemoSlots]longEntry
}

// longEntry is a long text a walk searched and the spans it found.
type longEntry struct {
	hash  uint64 // 0: empty
	text  []byte
	spans []span
}

// memoKey is what a walk makes of a clean key: its normKey and its
// credentialName.
type memoKey struct {
	norm string
	cred int
}

const (
	memoMaxLen = 64   // longest text remembered
	memoSeen   = 512  // slots of the seen-once table
	memoMax    = 1024 // texts remembered of each kind before starting over
	// Texts from longMemoMin to longMemoMax bytes have their spans
	// remembered, in longMemoSlots slots: at most 512 KiB of copies per
	// pooled walk. Within one value, a copy of a text of at least
	// reuseMin bytes is found by the walk itself.
	longMemoMin   = 512
	longMemoMax   = 32 << 10
	longMemoSlots = 16
)

// reset makes the memo r's, forgetting another Redactor's texts.
func (m *cleanMemo) reset(r *Redactor) {
	if m.owner == r {
		return
	}
	if m.owner == nil {
		m.seed = maphash.MakeSeed()
	}
	m.owner = r
	m.seen = [memoSeen]uint64{}
	clear(m.keys)
	clear(m.values)
	for i := range m.long {
		m.long[i].hash = 0
	}
}

// longSpans returns the spans remembered for the long text, and else its
// hash for noteLong.
func (m *cleanMemo) longSpans(text []byte) (spans []span, hash uint64, ok bool) {
	h := maphash.Bytes(m.seed, text) | 1
	e := &m.long[h%longMemoSlots]
	if e.hash == h && bytes.Equal(e.text, text) {
		return append([]span(nil), e.spans...), h, true
	}
	return nil, h, false
}

// noteLong remembers the spans of the long text whose hash longSpans
// gave, in place of the text its slot held.
func (m *cleanMemo) noteLong(hash uint64, text []byte, spans []span) {
	e := &m.long[hash%longMemoSlots]
	e.hash = hash
	e.text = append(e.text[:0], text...)
	e.spans = append(e.spans[:0], spans...)
}

// secondSight reports whether text was searched once before (by its
// hash), and notes it as searched otherwise.
func (m *cleanMemo) secondSight(text []byte) bool {
	h := maphash.Bytes(m.seed, text) | 1
	slot := &m.seen[h%memoSeen]
	if *slot == h {
		return true
	}
	*slot = h
	return false
}

// cleanValue reports whether the string value text is known clean.
func (m *cleanMemo) cleanValue(text []byte) bool {
	_, ok := m.values[string(text)]
	return ok
}

// noteValue records a search of the value text that found nothing.
func (m *cleanMemo) noteValue(text []byte) {
	if len(text) > memoMaxLen || !m.secondSight(text) {
		return
	}
	if m.values == nil {
		m.values = map[string]struct{}{}
	}
	if len(m.values) >= memoMax {
		clear(m.values)
	}
	m.values[string(text)] = struct{}{}
}

// cleanKey returns what the walk made of the key text, when text is
// known clean.
func (m *cleanMemo) cleanKey(text []byte) (memoKey, bool) {
	k, ok := m.keys[string(text)]
	return k, ok
}

// noteKey records a key in which a search found nothing (or that is too
// short to search) and what the walk made of it.
func (m *cleanMemo) noteKey(text []byte, k memoKey) {
	if len(text) > memoMaxLen || !m.secondSight(text) {
		return
	}
	if m.keys == nil {
		m.keys = map[string]memoKey{}
	}
	if len(m.keys) >= memoMax {
		clear(m.keys)
	}
	m.keys[string(text)] = k
}
