package redact

import (
	"math/bits"
	"slices"
)

// nWords is the size of a bitset in 64-bit words: room for the built-in
// rules (ours and the upstream set), custom rules and the special bits.
const nWords = 8

// bitset holds one bit per rule (and a few special bits, see spans.go).
type bitset [nWords]uint64

func bitOf(i int) bitset {
	var b bitset
	b[i>>6] = 1 << (i & 63)
	return b
}

func (b *bitset) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b *bitset) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

func (b *bitset) or(o *bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

// covers reports whether every bit of o is set in b.
func (b *bitset) covers(o *bitset) bool {
	for i := range b {
		if o[i]&^b[i] != 0 {
			return false
		}
	}
	return true
}

func (b *bitset) isZero() bool { return *b == bitset{} }

// each calls f for every set bit below n, in ascending order.
func (b *bitset) each(n int, f func(i int)) {
	for w := 0; w < nWords && w*64 < n; w++ {
		for x := b[w]; x != 0; x &= x - 1 {
			i := w*64 + bits.TrailingZeros64(x)
			if i >= n {
				return
			}
			f(i)
		}
	}
}

// keywordSet is the prefilter of a Redactor: it finds, in one pass over a
// text, which of many literal keywords the text contains, and returns the
// union of their bits. Before it, every rule looked for each of its
// keywords with its own bytes.Index or case-folding pass (about thirty
// passes over every JSON string), which cost more than the regexps.
//
// It is an Aho–Corasick automaton over ASCII-folded bytes, compiled into a
// full transition table (no failure links to follow at scan time), so each
// byte of text costs one table load. Keywords that ignore case match on the
// folded bytes; the others are checked against the original bytes when the
// folded form is found. The result is exactly that of testing every keyword
// with bytes.Contains or containsFold.
//
// Bytes that occur in no keyword share one column of the table, so the
// table has few columns; the row width is rounded up to a power of two and
// state numbers are stored pre-multiplied by it. States are numbered so
// that the states where some keyword ends come last: the scan loop tests a
// byte with one comparison and only looks up what matched on a hit.
type keywordSet struct {
	class  [256]uint8
	stride uint32   // row width, a power of two
	shift  uint     // log2(stride)
	next   []uint32 // next[state+class]: pre-multiplied next state
	// firstHit is the pre-multiplied number of the first state where a
	// keyword ends; states at or above it are hits.
	firstHit uint32
	// hits[(state-firstHit)>>shift] is what a hit state matches.
	hits []hitState
	// always holds the bits of empty keywords, which every text contains.
	always bitset
	all    bitset // union of every keyword's bit
	maxLen int    // the longest keyword's length
}

type hitState struct {
	fold  bitset         // bits of case-insensitive keywords ending here
	exact []exactKeyword // case-sensitive keywords ending here, to verify
	// foldLens are the lengths of the case-insensitive keywords ending
	// here, ascending, and foldUpTo[i] the bits of those at most
	// foldLens[i] long: what a hit contributes to a text that starts
	// fewer bytes before it than the longer ones need (within).
	foldLens []int
	foldUpTo []bitset
}

// kwHit is a place where a keyword ends: text[:end] ends with one of the
// keywords of hit state state (scanHits).
type kwHit struct {
	end   int
	state int
}

type exactKeyword struct {
	text []byte
	bit  bitset
}

// keyword is one literal to find and the bits it sets.
type keyword struct {
	text []byte
	fold bool
	bit  bitset
}

func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// newKeywordSet compiles the keywords.
func newKeywordSet(kws []keyword) *keywordSet {
	k := &keywordSet{}
	// The trie's nodes: failure link and the keywords ending there.
	type lenBit struct {
		n   int
		bit bitset
	}
	type node struct {
		fail   int
		fold   bitset
		foldKW []lenBit // the case-insensitive keywords behind fold
		exact  []exactKeyword
	}
	// Byte classes: 0 for bytes in no keyword, one class per folded byte
	// that is in one; upper-case letters share their lower-case class.
	var used [256]bool
	for _, kw := range kws {
		for _, c := range kw.text {
			used[foldByte(c)] = true
		}
	}
	ncls := 1
	var folded [256]uint8 // class of each folded byte
	for c := range 256 {
		if used[c] {
			folded[c] = uint8(ncls)
			ncls++
		}
	}
	if ncls > 256 {
		panic("redact: too many byte classes") // cannot happen: at most 256 folded bytes + 1
	}
	for c := range 256 {
		k.class[c] = folded[foldByte(byte(c))]
	}
	k.shift = uint(bits.Len(uint(ncls - 1)))
	k.stride = 1 << k.shift

	// Trie over the classes of folded bytes: the goto edges of node s are
	// edges[s*ncls:][:ncls] (the child per class; 0 = none, the root is no
	// child), and the keywords ending at each node. Classes ascend with
	// the bytes they stand for, so walking a node's edges in class order
	// walks them in byte order.
	total := 1
	for _, kw := range kws {
		total += len(kw.text)
	}
	nodes := make([]node, 1, total)
	edges := make([]int32, ncls, total*ncls)
	for _, kw := range kws {
		k.all.or(&kw.bit)
		k.maxLen = max(k.maxLen, len(kw.text))
		if len(kw.text) == 0 {
			k.always.or(&kw.bit)
			continue
		}
		s := 0
		for _, c := range kw.text {
			cl := int(folded[foldByte(c)])
			n := int(edges[s*ncls+cl])
			if n == 0 {
				n = len(nodes)
				nodes = append(nodes, node{})
				edges = append(edges, make([]int32, ncls)...)
				edges[s*ncls+cl] = int32(n)
			}
			s = n
		}
		if kw.fold {
			nodes[s].fold.or(&kw.bit)
			nodes[s].foldKW = append(nodes[s].foldKW, lenBit{len(kw.text), kw.bit})
		} else {
			nodes[s].exact = append(nodes[s].exact, exactKeyword{text: kw.text, bit: kw.bit})
		}
	}

	// Breadth-first: failure links, and the outputs they bring.
	order := make([]int, 1, len(nodes))
	for i := 0; i < len(order); i++ {
		s := order[i]
		for cl := 1; cl < ncls; cl++ {
			n := int(edges[s*ncls+cl])
			if n == 0 {
				continue
			}
			order = append(order, n)
			if s == 0 {
				nodes[n].fail = 0
				continue
			}
			f := nodes[s].fail
			for {
				if m := int(edges[f*ncls+cl]); m != 0 {
					nodes[n].fail = m
					break
				}
				if f == 0 {
					nodes[n].fail = 0
					break
				}
				f = nodes[f].fail
			}
			fl := nodes[n].fail
			nodes[n].fold.or(&nodes[fl].fold)
			nodes[n].foldKW = append(nodes[n].foldKW, nodes[fl].foldKW...)
			nodes[n].exact = append(nodes[n].exact, nodes[fl].exact...)
		}
	}

	// Number the states: those without a hit first (the root is 0), then
	// the hits.
	id := make([]uint32, len(nodes))
	var num uint32
	for _, s := range order {
		if nodes[s].fold.isZero() && len(nodes[s].exact) == 0 {
			id[s] = num * k.stride
			num++
		}
	}
	k.firstHit = num * k.stride
	for _, s := range order {
		if !nodes[s].fold.isZero() || len(nodes[s].exact) > 0 {
			id[s] = num * k.stride
			num++
			h := hitState{fold: nodes[s].fold, exact: nodes[s].exact}
			kw := slices.Clone(nodes[s].foldKW)
			slices.SortStableFunc(kw, func(a, b lenBit) int { return a.n - b.n })
			var upTo bitset
			for i, lb := range kw {
				upTo.or(&lb.bit)
				if i+1 < len(kw) && kw[i+1].n == lb.n {
					continue
				}
				h.foldLens = append(h.foldLens, lb.n)
				h.foldUpTo = append(h.foldUpTo, upTo)
			}
			k.hits = append(k.hits, h)
		}
	}

	// Full transition table: δ(s, c) = goto(s, c) if it exists, else
	// δ(fail(s), c), and the root stays at the root.
	k.next = make([]uint32, int(num)*int(k.stride))
	// δ(s, c) = goto(s, c) if it exists, else δ(fail(s), c), and the root
	// stays at the root; delta[s*ncls:][:ncls] is the row of node s, done
	// before s's (the failure links point to shallower nodes).
	delta := make([]int32, len(nodes)*ncls)
	for _, s := range order {
		row := delta[s*ncls:][:ncls]
		for cl := 1; cl < ncls; cl++ {
			if n := edges[s*ncls+cl]; n != 0 {
				row[cl] = n
			} else if s != 0 {
				row[cl] = delta[nodes[s].fail*ncls+cl]
			}
		}
		for cl, n := range row {
			k.next[id[s]+uint32(cl)] = id[n]
		}
	}
	return k
}

// scan returns the bits of the keywords that text contains.
func (k *keywordSet) scan(text []byte) bitset {
	found := k.always
	if found == k.all {
		return found
	}
	if len(text) < laneMin {
		k.scanLane(text, &found)
		return found
	}
	a, b := k.lanes(text)
	k.scan2(a, b, &found)
	return found
}

// laneMin is the shortest text scanned as two lanes.
const laneMin = 256

// lanes splits text for a scan in two lanes: b is its second half, a the
// first half and as many bytes more as a keyword that starts in it can
// reach, so that every occurrence lies wholly in one lane (an occurrence
// at the seam is found by both).
func (k *keywordSet) lanes(text []byte) (a, b []byte) {
	mid := len(text) / 2
	return text[:min(len(text), mid+k.maxLen-1)], text[mid:]
}

// scanLane adds to found the bits of the keywords in text.
func (k *keywordSet) scanLane(text []byte, found *bitset) {
	next, class, first := k.next, &k.class, k.firstHit
	var done hitsDone
	var s uint32
	for i, c := range text {
		s = next[s+uint32(class[c])]
		if s >= first {
			k.hit(text, i, s, found, &done)
		}
	}
}

// scan2 is scanLane of a and of b, interleaved: each byte's table load
// waits for the one before it in its lane, and two lanes keep two loads
// in flight.
func (k *keywordSet) scan2(a, b []byte, found *bitset) {
	next, class, first := k.next, &k.class, k.firstHit
	var done hitsDone
	var sa, sb uint32
	n := min(len(a), len(b))
	a, b = a[:len(a):len(a)], b[:len(b):len(b)]
	for i := 0; i < n; i++ {
		sa = next[sa+uint32(class[a[i]])]
		sb = next[sb+uint32(class[b[i]])]
		if sa >= first || sb >= first {
			if sa >= first {
				k.hit(a, i, sa, found, &done)
			}
			if sb >= first {
				k.hit(b, i, sb, found, &done)
			}
		}
	}
	for i := n; i < len(a); i++ {
		sa = next[sa+uint32(class[a[i]])]
		if sa >= first {
			k.hit(a, i, sa, found, &done)
		}
	}
	for i := n; i < len(b); i++ {
		sb = next[sb+uint32(class[b[i]])]
		if sb >= first {
			k.hit(b, i, sb, found, &done)
		}
	}
}

// hitsDone marks the hit states whose keywords a scan has all found, so
// that meeting them again (a path on every line of a tool output) costs
// one test.
// The marks of the first 512 hit states (every built-in keyword's: 304)
// are in small, on the scan's stack; a set with more states keeps the
// rest in big, made at the first mark there.
type hitsDone struct {
	small [8]uint64
	big   []uint64
}

// has reports whether hit state hs is marked.
func (d *hitsDone) has(hs int) bool {
	w := hs >> 6
	if w < len(d.small) {
		return d.small[w]&(1<<(hs&63)) != 0
	}
	w -= len(d.small)
	return w < len(d.big) && d.big[w]&(1<<(hs&63)) != 0
}

// mark marks hit state hs of a set of n.
func (d *hitsDone) mark(hs, n int) {
	w := hs >> 6
	if w < len(d.small) {
		d.small[w] |= 1 << (hs & 63)
		return
	}
	if d.big == nil {
		d.big = make([]uint64, (n+63)/64-len(d.small))
	}
	d.big[w-len(d.small)] |= 1 << (hs & 63)
}

// hit adds what hit state s, reached at text[i], matches.
func (k *keywordSet) hit(text []byte, i int, s uint32, found *bitset, done *hitsDone) {
	hs := int((s - k.firstHit) >> k.shift)
	if done.has(hs) {
		return
	}
	h := &k.hits[hs]
	found.or(&h.fold)
	all := true
	for _, e := range h.exact {
		if !found.covers(&e.bit) {
			if string(text[i+1-len(e.text):i+1]) == string(e.text) {
				found.or(&e.bit)
			} else {
				all = false
			}
		}
	}
	if all {
		done.mark(hs, len(k.hits))
	}
}

// scanHits appends to hits every place in text where a keyword ends, in
// order: one pass that serves every piece of text inside it (within), so
// that the strings of a JSON line are not scanned again one by one.
//
// scratch, when not nil, is reused for the second lane's hits.
func (k *keywordSet) scanHits(text []byte, hits []kwHit, scratch *[]kwHit) []kwHit {
	if len(text) < laneMin {
		return k.hitsLane(text, 0, hits)
	}
	// Two lanes, as scan2; b's hits go after a's, and the few of a's past
	// the middle (in the part of b that a also reads) are merged in.
	a, b := k.lanes(text)
	mid := len(text) - len(b)
	start := len(hits)
	var bh []kwHit
	if scratch != nil {
		bh = (*scratch)[:0]
	}
	hits, bh = k.hits2(a, b, mid, hits, bh)
	if scratch != nil {
		*scratch = bh[:0]
	}
	split := start
	for split < len(hits) && hits[split].end <= mid {
		split++
	}
	var buf [32]kwHit
	over := append(buf[:0], hits[split:]...)
	hits = hits[:split]
	for len(over) > 0 && len(bh) > 0 {
		if over[0].end <= bh[0].end {
			hits, over = append(hits, over[0]), over[1:]
		} else {
			hits, bh = append(hits, bh[0]), bh[1:]
		}
	}
	hits = append(hits, over...)
	return append(hits, bh...)
}

// hitsLane appends the hits of text, which starts at off in the text the
// hits are of.
func (k *keywordSet) hitsLane(text []byte, off int, hits []kwHit) []kwHit {
	next, class, first, shift := k.next, &k.class, k.firstHit, k.shift
	var s uint32
	for i, c := range text {
		s = next[s+uint32(class[c])]
		if s >= first {
			hits = append(hits, kwHit{end: off + i + 1, state: int((s - first) >> shift)})
		}
	}
	return hits
}

// hits2 is hitsLane of a (at 0) into ha and of b (at off) into hb,
// interleaved as in scan2.
func (k *keywordSet) hits2(a, b []byte, off int, ha, hb []kwHit) ([]kwHit, []kwHit) {
	next, class, first, shift := k.next, &k.class, k.firstHit, k.shift
	var sa, sb uint32
	n := min(len(a), len(b))
	a, b = a[:len(a):len(a)], b[:len(b):len(b)]
	for i := 0; i < n; i++ {
		sa = next[sa+uint32(class[a[i]])]
		sb = next[sb+uint32(class[b[i]])]
		if sa >= first || sb >= first {
			if sa >= first {
				ha = append(ha, kwHit{end: i + 1, state: int((sa - first) >> shift)})
			}
			if sb >= first {
				hb = append(hb, kwHit{end: off + i + 1, state: int((sb - first) >> shift)})
			}
		}
	}
	for i := n; i < len(a); i++ {
		sa = next[sa+uint32(class[a[i]])]
		if sa >= first {
			ha = append(ha, kwHit{end: i + 1, state: int((sa - first) >> shift)})
		}
	}
	for i := n; i < len(b); i++ {
		sb = next[sb+uint32(class[b[i]])]
		if sb >= first {
			hb = append(hb, kwHit{end: off + i + 1, state: int((sb - first) >> shift)})
		}
	}
	return ha, hb
}

// within returns what scan returns for text[a:b], given the hits of
// scanHits(text) that end in (a, b]: the bits of the keywords that end at
// one of them and start at a or later.
func (k *keywordSet) within(text []byte, hits []kwHit, a int) bitset {
	found := k.always
	for _, ht := range hits {
		h := &k.hits[ht.state]
		room := ht.end - a
		if n := len(h.foldLens); n > 0 {
			if h.foldLens[n-1] <= room {
				found.or(&h.fold)
			} else {
				for i := n - 1; i >= 0; i-- {
					if h.foldLens[i] <= room {
						found.or(&h.foldUpTo[i])
						break
					}
				}
			}
		}
		for _, e := range h.exact {
			if len(e.text) <= room && !found.covers(&e.bit) && string(text[ht.end-len(e.text):ht.end]) == string(e.text) {
				found.or(&e.bit)
			}
		}
	}
	return found
}
