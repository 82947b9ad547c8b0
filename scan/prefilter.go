package scan

import (
	"fmt"
	"math/bits"
	"regexp"
	"strings"

	"github.com/evcap/evcap/internal/litdfa"
)

// The prefilter decides which rules run on a piece of text, with one
// search for many literals, so that no regular expression runs on text
// it cannot match. It is scan's own: its literals are derived from scan's
// expressions by requirements (literals.go), never taken from redact's
// keyword lists, so a mistake in either prefilter cannot hide a secret
// from both redact and the gate. Being derived from the syntax, it is
// sound: a rule is skipped only when the text lacks every literal of one
// of the rule's clauses, or is shorter than any match, and then the rule
// cannot match. Rules from which no literal can be derived run on every
// text long enough (alwaysRun lists them).
type prefilter struct {
	dfa *litdfa.DFA
	// clausesOf[p] are the clauses literal p satisfies; entryOf[c] is
	// the entry clause c belongs to.
	clausesOf [][]int
	entryOf   []int
	entries   []filterEntry
	nClauses  int
	// open marks the entries no literal gates (a bit per entry).
	open []uint64

	// maxLit is the longest literal, in bytes; chunk is how many bytes of
	// text are folded at a time when a text must be folded (foldChunk;
	// tests make it small).
	maxLit, chunk int

	// Per search (a prefilter instance serves one goroutine).
	folded []byte
	sat    []uint32 // sat[c] == gen: clause c is satisfied
	fired  []uint32 // fired[k] == gen: the automaton's output k was seen
	gen    uint32
	hit    bool     // some literal was found: some clause may be satisfied
	marked []uint64 // entries with a clause satisfied (a bit per entry)
	found  func(int)
}

// filterEntry is what one rule needs of a text.
type filterEntry struct {
	name    string
	clauses []int
	minLen  int
	run     *byteRun
}

// filterSpec is one rule's requirements before compilation.
type filterSpec struct {
	name    string
	clauses [][]string
	minLen  int
	run     byteRun
}

// specOf derives the requirements of one regular expression.
func specOf(name string, re *regexp.Regexp) (filterSpec, error) {
	cl, n, run, err := requirements(re.String())
	if err != nil {
		return filterSpec{}, fmt.Errorf("scan: rule %s: %w", name, err)
	}
	return filterSpec{name: name, clauses: cl, minLen: n, run: run}, nil
}

func newPrefilter(specs []filterSpec) *prefilter {
	p := &prefilter{}
	ids := map[string]int{}
	var lits []string
	for _, s := range specs {
		e := filterEntry{name: s.name, minLen: s.minLen}
		if s.run.k > 0 {
			r := s.run
			e.run = &r
		}
		for _, c := range s.clauses {
			id := p.nClauses
			p.nClauses++
			p.entryOf = append(p.entryOf, len(p.entries))
			e.clauses = append(e.clauses, id)
			for _, l := range c {
				li, ok := ids[l]
				if !ok {
					li = len(lits)
					ids[l] = li
					lits = append(lits, l)
					p.clausesOf = append(p.clausesOf, nil)
				}
				p.clausesOf[li] = append(p.clausesOf[li], id)
			}
		}
		p.entries = append(p.entries, e)
	}
	p.dfa = litdfa.New(lits)
	for _, l := range lits {
		p.maxLit = max(p.maxLit, len(l))
	}
	p.open = make([]uint64, (len(p.entries)+63)/64)
	for i, e := range p.entries {
		if len(e.clauses) == 0 {
			p.open[i/64] |= 1 << (i % 64)
		}
	}
	p.chunk = foldChunk
	return p
}

// foldChunk is how much text is folded at a time: a many-megabyte tool
// output is searched through a small buffer instead of a folded copy.
const foldChunk = 64 << 10

// instance returns a prefilter that shares p's compiled parts and has its
// own search state, for one file's scan.
func (p *prefilter) instance() *prefilter {
	q := &prefilter{dfa: p.dfa, clausesOf: p.clausesOf, entryOf: p.entryOf, entries: p.entries, nClauses: p.nClauses,
		open: p.open, maxLit: p.maxLit, chunk: p.chunk, sat: make([]uint32, p.nClauses),
		fired: make([]uint32, p.dfa.NumOuts()), marked: make([]uint64, len(p.open))}
	q.found = func(k int) {
		q.hit = true
		for _, l := range q.dfa.Outs(k) {
			for _, c := range q.clausesOf[l] {
				q.sat[c] = q.gen
				e := q.entryOf[c]
				q.marked[e/64] |= 1 << (e % 64)
			}
		}
	}
	return q
}

// search folds text once and finds every literal it holds; admits then
// answers for each rule until the next search.
func (p *prefilter) search(text string) {
	p.hit = false
	clear(p.marked)
	p.gen++
	if p.gen == 0 {
		clear(p.sat)
		clear(p.fired)
		p.gen = 1
	}
	if p.nClauses == 0 {
		return
	}
	if !litdfa.NeedsFold(text) {
		// The fold of text is its ASCII letters lowered, which the
		// automaton's classes do themselves.
		p.dfa.Scan(text, 0, p.fired, p.gen, p.found)
		return
	}
	// Text longer than a chunk is folded and searched a chunk at a time.
	// Each chunk after the first starts at most overlap bytes before the
	// previous one ended, at a byte that starts a rune or is a byte of its
	// own (not 0x80–0xBF): there the fold of the chunk is the fold of the
	// whole text (foldText consumes several bytes only as U+212A or
	// U+017F, whose later bytes are in 0x80–0xBF). A literal found in the
	// folded text comes from at most 3 bytes per byte of it (the fold
	// makes U+212A one byte) and starts at such a byte, so one crossing a
	// chunk's end lies whole in the next chunk.
	overlap := 3*p.maxLit + 4
	for c := 0; ; {
		d := min(len(text), c+max(p.chunk, 2*overlap))
		p.folded = foldText(p.folded[:0], text[c:d])
		p.dfa.Scan(bstr(p.folded), 0, p.fired, p.gen, p.found)
		if d == len(text) {
			return
		}
		c = d - overlap
		for c < d && text[c] >= 0x80 && text[c] < 0xC0 {
			c++
		}
	}
}

// next returns the first entry at or after i that may admit the text of
// the last search (one with a clause satisfied, or none to satisfy), or
// -1: the entries in between do not.
func (p *prefilter) next(i int) int {
	for w := i / 64; w < len(p.marked); w++ {
		b := p.marked[w] | p.open[w]
		if w == i/64 {
			b &^= 1<<(i%64) - 1
		}
		if b != 0 {
			return w*64 + bits.TrailingZeros64(b)
		}
	}
	return -1
}

// admits reports whether rule i can match text, the text of the last
// search.
func (p *prefilter) admits(i int, text string) bool {
	e := &p.entries[i]
	if len(text) < e.minLen || len(e.clauses) > 0 && !p.hit {
		return false
	}
	for _, c := range e.clauses {
		if p.sat[c] != p.gen {
			return false
		}
	}
	return e.run == nil || e.run.holds(text)
}

// alwaysRun names the entries no literal gates.
func (p *prefilter) alwaysRun() []string {
	var out []string
	for _, e := range p.entries {
		if len(e.clauses) == 0 {
			out = append(out, e.name)
		}
	}
	return out
}

// credentialKeywords are literals one of which every credential name
// holds, folded: each word of credentialWords and credentialParts, and the
// "key", "pwd" and "pass" that credentialName also accepts, with those
// holding another dropped. credentialName splits a name into lowered
// words, each a piece of the lowered name, and accepts one only when a
// word is, or holds, one of these; the names it is given are ASCII
// (assignRe and flagRe match no other letters), so the folded text holds
// the keyword too.
func credentialKeywords() []string {
	kws := []string{"key", "pwd", "pass"}
	for w := range credentialWords {
		kws = append(kws, w)
	}
	kws = append(kws, credentialParts...)
	return minimize(kws)
}

// credentialSpec is the requirement of the credential-assignment check:
// a credential keyword and what assignRe or flagRe requires.
func credentialSpec() (filterSpec, error) {
	alt := "(?:" + assignRe.String() + ")|(?:" + flagRe.String() + ")"
	cl, n, run, err := requirements(alt)
	if err != nil {
		return filterSpec{}, err
	}
	kw := credentialKeywords()
	for i := range kw {
		kw[i] = strings.ToLower(kw[i])
	}
	return filterSpec{name: RuleCredential, clauses: append(cl, kw), minLen: n, run: run}, nil
}
