package redact

import "bytes"

// litFinder finds the occurrences of a rule's literals in one text. The
// rules look for their anchors, required literals and keywords each with
// its own pass over the text (appendIndexFoldAll, indexFold), which on a
// long tool output full of a literal's rarest byte ("-" of "a3-", "s" of
// "s.") cost more than the regexps. A text's keyword scan already knows
// where every keyword ends: a litFinder built on those hits answers for a
// literal that is a keyword by checking the hits alone.
//
// A nil *litFinder searches the text (appendIndexFoldAll, indexFold).
type litFinder struct {
	r *Redactor
	// hits are where keywords end, as ends in the text they were
	// scanned in, which starts a bytes before the text searched.
	hits []kwHit
	a    int
}

// indexed reports whether the hits show every occurrence of l: l is
// lower-case ASCII (the occurrences appendIndexFoldAll finds are then its
// ASCII-case-insensitive ones, which the folding automaton also finds)
// and one of the keyword set's keywords, whose every occurrence ends at a
// hit.
func (f *litFinder) indexed(l []byte) bool {
	if f == nil || len(l) == 0 {
		return false
	}
	for _, c := range l {
		if c >= 0x80 || c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return f.r.kwLits[string(l)]
}

// appendAll is appendIndexFoldAll(occ, text, l).
func (f *litFinder) appendAll(occ []int, text, l []byte) []int {
	if !f.indexed(l) {
		return appendIndexFoldAll(occ, text, l)
	}
	last := -1
	for _, h := range f.hits {
		s := h.end - f.a - len(l)
		// A scan in two lanes may list an end twice (scanHits).
		if s < 0 || s == last {
			continue
		}
		if bytes.EqualFold(text[s:s+len(l)], l) {
			occ = append(occ, s)
			last = s
		}
	}
	return occ
}

// contains is indexFold(text, l) >= 0.
func (f *litFinder) contains(text, l []byte) bool {
	if !f.indexed(l) {
		return indexFold(text, l) >= 0
	}
	for _, h := range f.hits {
		if s := h.end - f.a - len(l); s >= 0 && bytes.EqualFold(text[s:s+len(l)], l) {
			return true
		}
	}
	return false
}

// keywordLits lists the keywords of kws as the keyword set matches them
// (ASCII lower case), for litFinder.
func keywordLits(kws []keyword) map[string]bool {
	m := map[string]bool{}
	for _, k := range kws {
		if len(k.text) > 0 {
			b := make([]byte, len(k.text))
			for i, c := range k.text {
				b[i] = foldByte(c)
			}
			m[string(b)] = true
		}
	}
	return m
}
