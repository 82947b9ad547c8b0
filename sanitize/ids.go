package sanitize

import (
	"hash/maphash"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/evcap/evcap/providers"
)

// Pseudonyms are shaped so that a reader sees at once that they stand for
// something, and so that sanitize recognises them on a second run and
// leaves them alone: "session-0001", "uuid-0002", "thread-0001" for bare
// ids, and "<prefix>_evcap_0001" for ids with a provider prefix
// ("toolu_evcap_0003", "ses_evcap_0001", "item_evcap_0002"). Counters are
// per family, start at 1 in every capture, count in order of first
// appearance and are zero-padded so that sorting pseudonyms keeps that order.
var pseudonymRe = regexp.MustCompile(`^(?:(?:session|uuid|thread)-[0-9]{4,}|[a-z]+_evcap_[0-9]{4,})$`)

// IsPseudonym reports whether s has the shape of a pseudonym sanitize
// writes (pseudonymRe, matched by hand: it is asked of every string under
// an id key).
func IsPseudonym(s string) bool {
	for _, fam := range [...]string{"session-", "uuid-", "thread-"} {
		if rest, ok := strings.CutPrefix(s, fam); ok {
			return len(rest) >= 4 && allDigits(rest)
		}
	}
	i := strings.Index(s, "_evcap_")
	if i <= 0 || len(s)-i-len("_evcap_") < 4 || !allDigits(s[i+len("_evcap_"):]) {
		return false
	}
	for j := 0; j < i; j++ {
		if s[j] < 'a' || s[j] > 'z' {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// idPrefixes are the provider id prefixes kept in the pseudonym ("toolu_",
// "ses_", ...): every provider descriptor's VolatileIDPrefixes. Built once
// from the registry, never written.
var idPrefixes = volatileIDPrefixes()

func volatileIDPrefixes() []string {
	var out []string
	for _, d := range providers.All() {
		for _, p := range d.VolatileIDPrefixes {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// isCodexItem reports a Codex item id: "item_" and decimal digits.
func isCodexItem(v string) bool {
	rest, ok := strings.CutPrefix(v, "item_")
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return false
		}
	}
	return true
}

// ids maps volatile ids to pseudonyms, consistently for a whole capture.
//
// It grows with every distinct id of the capture (the bench capture learns
// 30 thousand) and lives to its end, so it holds no pointers for the
// collector to trace on every cycle: each id and its pseudonym are bytes
// of one slice (text), found through a map from the id's 64-bit hash to
// its entry. Lookups compare the text, so two ids with the same hash (a
// chain of entries) are still told apart. Both the text and the entries
// are kept in fixed-size chunks, so growing never copies what is there.
type ids struct {
	seed maphash.Seed
	m    map[uint64]int32 // an id's hash → its first entry with that hash
	n    int              // entries
	ents [][]idEnt        // entry e is ents[e/idEntChunk][e%idEntChunk]
	text [][]byte         // ids and their pseudonyms, back to back, in chunks of idTextChunk
	// count is the counter of each family.
	count map[string]int
	// lens has bit n set when some learned id is n bytes long (255 for
	// 255 and more), so replace looks up only the tokens that can be an id.
	lens [4]uint64
	// buf is replace's output.
	buf []byte
	// collide, set by a test only, gives every id the same hash, so that
	// the chains of entries are what tells ids apart.
	collide bool
}

// hash is an id's key in m.
func (d *ids) hash(v string) uint64 {
	if d.collide {
		return 0
	}
	return maphash.String(d.seed, v)
}

// idEnt is one learned id: its text at text[chunk][off:off+idLen], its
// pseudonym right after it, and the next entry of the same hash (-1 for
// none).
type idEnt struct {
	chunk, off   uint32
	idLen, psLen uint16
	next         int32
}

// The sizes of the chunks of ids.ents and ids.text. An id and its
// pseudonym (at most 200 + 30 bytes) always fit in one text chunk.
const (
	idEntChunk  = 4096
	idTextChunk = 64 << 10
)

// ent is entry e.
func (d *ids) ent(e int32) *idEnt { return &d.ents[e/idEntChunk][e%idEntChunk] }

// idText is the text of entry en.
func (d *ids) idText(en *idEnt) []byte {
	return d.text[en.chunk][en.off : en.off+uint32(en.idLen)]
}

func newIDs() *ids {
	return &ids{seed: maphash.MakeSeed(), m: map[uint64]int32{}, count: map[string]int{}}
}

// len is the number of ids learned.
func (d *ids) len() int { return d.n }

// find returns the entry of id v, or -1.
func (d *ids) find(v string) int32 {
	e, ok := d.m[d.hash(v)]
	if !ok {
		return -1
	}
	for e >= 0 {
		en := d.ent(e)
		if int(en.idLen) == len(v) && string(d.idText(en)) == v {
			return e
		}
		e = en.next
	}
	return -1
}

// pseudonym is the pseudonym of entry e (valid until the next learn).
func (d *ids) pseudonym(e int32) []byte {
	en := d.ent(e)
	p := en.off + uint32(en.idLen)
	return d.text[en.chunk][p : p+uint32(en.psLen)]
}

// idKeys are the keys whose string values may be volatile ids: every
// provider descriptor's VolatileIDKeys, and the id keys of evcap's own
// normalized events (messageId, partId, toolCallId), which copy them.
// Built once from the registry, never written.
var idKeys = volatileIDKeys()

func volatileIDKeys() map[string]bool {
	keys := map[string]bool{"messageId": true, "partId": true, "toolCallId": true}
	for _, d := range providers.All() {
		for _, k := range d.VolatileIDKeys {
			keys[k] = true
		}
	}
	return keys
}

// family says which pseudonym family a value seen under key belongs to,
// or "" when it is not a volatile id. Only keys that name ids count, so
// free text is never mistaken for an id.
func family(key, v string) string {
	if !idKeys[key] {
		return "" // every case below is one of these keys
	}
	if v == "" || len(v) > 200 || IsPseudonym(v) || !isToken(v) {
		return ""
	}
	for _, p := range idPrefixes {
		if strings.HasPrefix(v, p) && len(v) >= len(p)+4 {
			return strings.TrimSuffix(p, "_") // key is one of idKeys (checked above)
		}
	}
	long := len(v) >= 8 && strings.ContainsAny(v, "0123456789")
	switch key {
	case "session_id", "sessionID", "sessionId":
		if long {
			return "session"
		}
	case "thread_id":
		if long {
			return "thread"
		}
	case "uuid":
		if long {
			return "uuid"
		}
	case "tool_id", "tool_use_id", "toolCallId", "callID":
		if long {
			return "tool"
		}
	case "id":
		if isCodexItem(v) {
			return "item"
		}
	}
	return ""
}

// learn records v as a volatile id of the given family, if new, and
// returns its entry. v is copied: it may point into a record. Ids are at
// most 200 bytes (family).
func (d *ids) learn(fam, v string) int32 {
	h := d.hash(v)
	first, seen := d.m[h]
	if seen {
		for e := first; e >= 0; e = d.ent(e).next {
			en := d.ent(e)
			if int(en.idLen) == len(v) && string(d.idText(en)) == v {
				return e
			}
		}
	} else {
		first = -1
	}
	d.count[fam]++
	// The pseudonym is at most the family, "_evcap_" and 20 digits.
	need := len(v) + len(fam) + len("_evcap_") + 20
	if k := len(d.text); k == 0 || cap(d.text[k-1])-len(d.text[k-1]) < need {
		d.text = append(d.text, make([]byte, 0, max(idTextChunk, need)))
	}
	ci := len(d.text) - 1
	t := d.text[ci]
	off := len(t)
	t = append(t, v...)
	t = append(t, fam...)
	switch fam {
	case "session", "uuid", "thread":
		t = append(t, '-')
	default:
		t = append(t, "_evcap_"...)
	}
	t = appendCounter(t, d.count[fam])
	d.text[ci] = t
	if d.n%idEntChunk == 0 {
		d.ents = append(d.ents, make([]idEnt, 0, idEntChunk))
	}
	last := &d.ents[len(d.ents)-1]
	*last = append(*last, idEnt{chunk: uint32(ci), off: uint32(off), idLen: uint16(len(v)), psLen: uint16(len(t) - off - len(v)), next: first})
	e := int32(d.n)
	d.n++
	d.m[h] = e
	n := min(len(v), 255)
	d.lens[n>>6] |= 1 << (n & 63)
	return e
}

// appendCounter appends n in decimal, zero-padded to four digits (as
// %04d writes it).
func appendCounter(dst []byte, n int) []byte {
	for p := 1000; p > 1 && n < p; p /= 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(n), 10)
}

// replace swaps every known id that appears in s as a whole token (a run
// of letters, digits, "_" and "-") for its pseudonym.
func (d *ids) replace(s string) (string, bool) {
	out, ok := d.appendReplace(d.buf[:0], s)
	if !ok {
		return s, false
	}
	d.buf = out
	return string(out), true
}

// appendReplace appends s with every known id token in it swapped for its
// pseudonym to dst, and reports true; when s holds none, it returns dst
// as it was and false.
func (d *ids) appendReplace(dst []byte, s string) ([]byte, bool) {
	if d.n == 0 {
		return dst, false
	}
	last, changed := 0, false
	for i := 0; i < len(s); {
		if !tokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && tokenByte(s[j]) {
			j++
		}
		if !d.mayHold(j - i) {
			i = j
			continue
		}
		if e := d.find(s[i:j]); e >= 0 {
			dst = append(dst, s[last:i]...)
			dst = append(dst, d.pseudonym(e)...)
			last, changed = j, true
		}
		i = j
	}
	if !changed {
		return dst, false
	}
	return append(dst, s[last:]...), true
}

// bytesString is b as a string without a copy, for a look-up or a call
// that keeps nothing of it: b must not change while the string is used.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// mayHold reports whether an id of n bytes may be known.
// Lengths from 255 on share one bit.
func (d *ids) mayHold(n int) bool {
	n = min(n, 255)
	return d.lens[n>>6]&(1<<(n&63)) != 0
}

func tokenByte(c byte) bool { return tokenBytes[c] }

// tokenBytes marks the bytes of an id token: letters, digits, "_" and "-".
var tokenBytes = [256]bool{'_': true, '-': true,
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true, 'g': true, 'h': true, 'i': true, 'j': true,
	'k': true, 'l': true, 'm': true, 'n': true, 'o': true, 'p': true, 'q': true, 'r': true, 's': true, 't': true,
	'u': true, 'v': true, 'w': true, 'x': true, 'y': true, 'z': true,
	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true, 'G': true, 'H': true, 'I': true, 'J': true,
	'K': true, 'L': true, 'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true, 'S': true, 'T': true,
	'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tokenByte(s[i]) {
			return false
		}
	}
	return true
}
