// Package litdfa finds which of a set of literals, ASCII case ignored,
// occur in a text, in one pass of one table lookup per byte. scan's
// prefilter uses it to decide which rules can match a string, and
// evbench's floor to measure what such a search costs. It knows nothing of
// rules or of JSON.
package litdfa

import "strings"

// DFA finds which of a set of lower-case literals occur in a text: an
// Aho–Corasick automaton made a full transition table over byte classes.
// ASCII case folding is in the class map (an upper-case letter is in its
// lower case's class), so a text is searched as it is, without a folded
// copy; a caller that folds more than ASCII (scan folds the Kelvin sign
// and the long s to k and s, see NeedsFold) folds such a text first.
//
// States are numbered so that those at which some literal ends come last
// (at or past outStart): the loop tests one comparison per byte, and a
// state's literals are reported once per search.
type DFA struct {
	class  [256]uint8
	nclass uint32
	// delta[s+c] is the state after state s (a row offset: the state's
	// number times nclass) reads a byte of class c, as a row offset.
	// packed is the same table when every row offset fits in 16 bits
	// (then delta is nil): each entry holds the next state's row offset
	// in its low 16 bits and, in its high 16, 1 + the number k of the
	// state's literals (0 for a state without). The loop then looks up
	// fired[k+1] for every byte, with fired[0] standing for "no
	// literal", instead of branching on whether the state has literals:
	// states with literals are entered often and irregularly (one-byte
	// literals such as " " or a digit), and each mispredicted branch
	// costs several lookups.
	delta  []uint32
	packed []uint32
	// outStart is the row offset of the first state with literals;
	// outs[(s-outStart)/nclass] are that state's literals (ids into the
	// list the automaton was built from), those of its suffixes too.
	outStart uint32
	outs     [][]int32
	states   int
}

// New builds the automaton of lits (lower case; an upper-case letter in a
// literal matches only itself).
func New(lits []string) *DFA {
	return build(lits, false)
}

// build is New; wide makes the 32-bit table however small (for the tests).
func build(lits []string, wide bool) *DFA {
	d := &DFA{}
	// Classes: every byte of a literal has its own (with its upper case
	// for a letter); every other byte is class 0.
	n := uint8(1)
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			b := l[i]
			if d.class[b] != 0 {
				continue
			}
			d.class[b] = n
			if b >= 'a' && b <= 'z' {
				d.class[b-'a'+'A'] = n
			}
			n++
		}
	}
	nc := int(n)
	d.nclass = uint32(nc)

	// The trie, its failure links and outputs.
	gotoT := [][]int32{make([]int32, nc)}
	for i := range gotoT[0] {
		gotoT[0][i] = -1
	}
	own := [][]int32{nil}
	for id, l := range lits {
		s := 0
		for i := 0; i < len(l); i++ {
			c := d.class[l[i]]
			if gotoT[s][c] < 0 {
				row := make([]int32, nc)
				for j := range row {
					row[j] = -1
				}
				gotoT = append(gotoT, row)
				own = append(own, nil)
				gotoT[s][c] = int32(len(gotoT) - 1)
			}
			s = int(gotoT[s][c])
		}
		own[s] = append(own[s], int32(id))
	}
	ns := len(gotoT)
	d.states = ns
	fail := make([]int32, ns)
	full := make([][]int32, ns)
	outs := make([][]int32, ns)
	order := []int32{0}
	full[0] = make([]int32, nc)
	for c := 0; c < nc; c++ {
		if t := gotoT[0][c]; t >= 0 {
			full[0][c] = t
			fail[t] = 0
			order = append(order, t)
		}
	}
	outs[0] = own[0]
	for q := 1; q < len(order); q++ {
		s := order[q]
		outs[s] = append(append([]int32(nil), own[s]...), outs[fail[s]]...)
		full[s] = make([]int32, nc)
		for c := 0; c < nc; c++ {
			if t := gotoT[s][c]; t >= 0 {
				full[s][c] = t
				fail[t] = full[fail[s]][c]
				order = append(order, t)
			} else {
				full[s][c] = full[fail[s]][c]
			}
		}
	}

	// Renumber: states without literals first (the root stays 0).
	num := make([]uint32, ns)
	next := uint32(0)
	for s := 0; s < ns; s++ {
		if len(outs[s]) == 0 {
			num[s] = next
			next++
		}
	}
	d.outStart = next * d.nclass
	for s := 0; s < ns; s++ {
		if len(outs[s]) > 0 {
			num[s] = next
			next++
			d.outs = append(d.outs, outs[s])
		}
	}
	if ns*nc < 1<<16 && len(d.outs) < 1<<16-1 && !wide {
		d.packed = make([]uint32, ns*nc)
		for s := 0; s < ns; s++ {
			row := d.packed[int(num[s])*nc:]
			for c := 0; c < nc; c++ {
				t := num[full[s][c]]
				e := t * d.nclass
				if e >= d.outStart {
					e |= (t - d.outStart/d.nclass + 1) << 16
				}
				row[c] = e
			}
		}
		return d
	}
	d.delta = make([]uint32, ns*nc)
	for s := 0; s < ns; s++ {
		row := d.delta[int(num[s])*nc:]
		for c := 0; c < nc; c++ {
			row[c] = num[full[s][c]] * d.nclass
		}
	}
	return d
}

// Scan runs the automaton over text from state s (0 to start, or what a
// Scan of the text before returned) and calls found with k, the number of
// every state with literals it enters (Outs(k) lists them), once per gen:
// fired (NumOuts long) holds, for each k, the gen it was last reported
// in (fired's layout is the automaton's own: callers only make it and
// clear it). It returns the state it ends in.
func (d *DFA) Scan(text string, s uint32, fired []uint32, gen uint32, found func(int)) uint32 {
	if d.packed != nil {
		return d.scanPacked(text, s, fired, gen, found)
	}
	delta, class, out, nc := d.delta, &d.class, d.outStart, d.nclass
	for i := 0; i < len(text); i++ {
		s = delta[s+uint32(class[text[i]])]
		if s >= out {
			if k := (s - out) / nc; fired[k] != gen {
				fired[k] = gen
				found(int(k))
			}
		}
	}
	return s
}

// scanPacked is Scan over packed (fired is NumOuts long: one more than
// the states with literals, fired[0] for none).
func (d *DFA) scanPacked(text string, s uint32, fired []uint32, gen uint32, found func(int)) uint32 {
	tab, class := d.packed, &d.class
	for i := 0; i < len(text); i++ {
		e := tab[(s&0xFFFF)+uint32(class[text[i]])]
		s = e
		if k := e >> 16; fired[k] != gen {
			fired[k] = gen
			if k > 0 {
				found(int(k - 1))
			}
		}
	}
	return s & 0xFFFF
}

// NumOuts is the length fired needs: one more than the number of states
// with literals (k, as found is given it, is below len(outs)).
func (d *DFA) NumOuts() int { return len(d.outs) + 1 }

// Outs are the literals (indexes into the list New was given) that end at
// state k, those of its suffixes too.
func (d *DFA) Outs(k int) []int32 { return d.outs[k] }

// NeedsFold reports whether text holds a rune that Unicode simple folding
// maps to an ASCII letter from more than one byte (U+212A, U+017F): a
// caller matching with that folding folds such a text before the search.
func NeedsFold(text string) bool {
	return strings.Contains(text, "\u212A") || strings.Contains(text, "\u017F")
}
