package redact

import "hash/maphash"

// A stream's lines repeat most of their short strings: every Claude
// stream_event line names the same session, the same event and delta
// types and the same keys. A string's search (findSpansAt past
// wholeValue) depends on its text alone, and so do a key's normal form
// and credentialName, so a walk remembers the short texts it searched and
// found nothing in, and does not search them again. A text is remembered only when it is seen a second time (a
// table of hashes says which were seen once), so that the unique strings
// of each line (its uuid, its delta) cost a hash, not a copy.

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
