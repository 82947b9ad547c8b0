package scan

import (
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Literal analysis: what a regular expression's every match must contain.
//
// requirements walks the parsed, simplified syntax tree of a rule and
// returns clauses: sets of literals such that every match of the
// expression contains at least one literal of every clause. The literals
// are folded (foldText), so they are looked for in the folded text, where
// every spelling a case-insensitive part of the expression accepts looks
// the same. A clause is only ever a consequence of the syntax:
//
//   - a literal or a small character class is the set of what it matches
//     exactly, and a concatenation of such parts the cross product, while
//     it stays small;
//   - a concatenation requires what each of its parts requires;
//   - an alternation requires the union of one clause of each branch, and
//     nothing when a branch requires nothing;
//   - x+ and x{n,} with n ≥ 1 require what x requires; x*, x? and x{0,n}
//     require nothing (but x? adds the empty string to an exact set);
//   - a rune the fold cannot map to one spelling (a case-insensitive
//     non-ASCII letter, U+FFFD, which also matches an invalid byte) breaks
//     a literal in two.
//
// No clauses means the expression requires no literal: its rule runs on
// every text long enough to hold a match (minLen).

// maxExact bounds the exact sets kept for parts of an expression (their
// cross products grow fast).
const maxExact = 64

// maxClass bounds the characters of a class that is expanded into an
// exact set.
const maxClass = 10

// maxClauses bounds the clauses kept per expression (the best ones).
const maxClauses = 4

type litInfo struct {
	// exact, when exactOK, is every folded string the part can match.
	exact   []string
	exactOK bool
	// cnf are the clauses every match satisfies.
	cnf [][]string
}

// foldRune is what foldText makes of r: ASCII letters lowered, the Kelvin
// sign and the long s (the only non-ASCII runes that fold to ASCII
// letters) made their ASCII letters, and everything else kept.
func foldRune(r rune) rune {
	switch {
	case r >= 'A' && r <= 'Z':
		return r + 'a' - 'A'
	case r == '\u212A':
		return 'k'
	case r == '\u017F':
		return 's'
	}
	return r
}

// foldText appends the folded bytes of s to dst. It maps rune by rune, so
// a text holding a literal holds its folded form once both are folded;
// bytes that are not valid UTF-8 are kept as they are.
func foldText(dst []byte, s string) []byte {
	if cap(dst)-len(dst) < len(s) {
		// One allocation of the size needed, not a doubling series.
		dst = append(make([]byte, 0, len(dst)+len(s)), dst...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x84 && s[i+2] == 0xAA: // U+212A
			dst = append(dst, 'k')
			i += 2
		case c == 0xC5 && i+1 < len(s) && s[i+1] == 0xBF: // U+017F
			dst = append(dst, 's')
			i++
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// literalRune returns the folded spelling of a rune of a literal, or false
// when the text may hold it in a form the fold does not map to that one
// spelling.
func literalRune(r rune, fold bool) (string, bool) {
	if r == utf8.RuneError {
		return "", false
	}
	if !fold {
		return string(foldRune(r)), true
	}
	f := foldRune(r)
	for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
		if foldRune(o) != f {
			return "", false
		}
	}
	return string(f), true
}

// requirements parses expr as regexp.Compile does and returns its clauses,
// the least number of bytes a match takes and the longest run of one
// class of bytes every match holds (k == 0 when none is worth testing).
func requirements(expr string) (clauses [][]string, minLen int, run byteRun, err error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, 0, byteRun{}, err
	}
	re = re.Simplify()
	info := analyze(re)
	cnf := info.cnf
	if info.exactOK {
		if c := minimize(info.exact); c != nil {
			cnf = append(cnf, c)
		}
	}
	run = bestRun(re)
	if run.k < minRunLen {
		run = byteRun{}
	}
	return best(cnf, maxClauses), minRunes(re), run, nil
}

// minRunLen is the shortest run worth a pass over the text.
const minRunLen = 16

// minRunes is the least number of runes a match of re holds; every rune
// of text takes at least one byte, so it bounds the bytes from below.
func minRunes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minRunes(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minRunes(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minRunes(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range re.Sub {
			if m := minRunes(s); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	// Empty-width assertions, x*, x?, no match.
	return 0
}

func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []string{""}, exactOK: true}
	case syntax.OpLiteral:
		parts := make([]litInfo, len(re.Rune))
		for i, r := range re.Rune {
			if s, ok := literalRune(r, re.Flags&syntax.FoldCase != 0); ok {
				parts[i] = litInfo{exact: []string{s}, exactOK: true}
			}
		}
		return concat(parts)
	case syntax.OpCharClass:
		return charClass(re.Rune)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpConcat:
		parts := make([]litInfo, len(re.Sub))
		for i, s := range re.Sub {
			parts[i] = analyze(s)
		}
		return concat(parts)
	case syntax.OpAlternate:
		return alternate(re.Sub)
	case syntax.OpQuest:
		sub := analyze(re.Sub[0])
		if sub.exactOK && len(sub.exact) < maxExact {
			return litInfo{exact: append(append([]string{}, sub.exact...), ""), exactOK: true}
		}
		return litInfo{}
	case syntax.OpPlus:
		return required(analyze(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min == 0 {
			return litInfo{}
		}
		return required(analyze(re.Sub[0]))
	}
	// x*, any character, no match: nothing is required (for no match
	// that is merely weaker than it could be).
	return litInfo{}
}

// required keeps only what every match of the part requires, dropping
// its exact set (x+ matches more than x).
func required(sub litInfo) litInfo {
	cnf := sub.cnf
	if sub.exactOK {
		if c := minimize(sub.exact); c != nil {
			cnf = append(append([][]string{}, cnf...), c)
		}
	}
	return litInfo{cnf: cnf}
}

func charClass(ranges []rune) litInfo {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 4*maxClass {
			return litInfo{}
		}
	}
	set := map[string]bool{}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r == utf8.RuneError {
				// Matches an invalid byte too, which the fold keeps as
				// it is.
				return litInfo{}
			}
			// Class members are each matched as they are (the parser
			// has already added the case variants).
			set[string(foldRune(r))] = true
		}
	}
	if len(set) > maxClass || len(set) == 0 {
		return litInfo{}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return litInfo{exact: out, exactOK: true}
}

func concat(parts []litInfo) litInfo {
	var cnf [][]string
	run := []string{""}
	all := true
	flush := func() {
		if c := minimize(run); c != nil {
			cnf = append(cnf, c)
		}
		run = []string{""}
	}
	for _, p := range parts {
		if p.exactOK {
			if len(run)*len(p.exact) <= maxExact {
				run = cross(run, p.exact)
				continue
			}
			all = false
			flush()
			run = p.exact
			continue
		}
		all = false
		flush()
		cnf = append(cnf, p.cnf...)
	}
	if all {
		return litInfo{exact: dedupe(run), exactOK: true}
	}
	flush()
	return litInfo{cnf: best(cnf, maxClauses)}
}

func alternate(subs []*syntax.Regexp) litInfo {
	infos := make([]litInfo, len(subs))
	exactOK := true
	var exact []string
	for i, s := range subs {
		infos[i] = analyze(s)
		if infos[i].exactOK && exactOK && len(exact)+len(infos[i].exact) <= maxExact {
			exact = append(exact, infos[i].exact...)
		} else {
			exactOK = false
		}
	}
	if exactOK {
		return litInfo{exact: dedupe(exact), exactOK: true}
	}
	var union []string
	for _, in := range infos {
		cnf := in.cnf
		if in.exactOK {
			if c := minimize(in.exact); c != nil {
				cnf = append(cnf, c)
			}
		}
		b := best(cnf, 1)
		if len(b) == 0 {
			// A branch that requires nothing: neither does the whole.
			return litInfo{}
		}
		union = append(union, b[0]...)
	}
	if c := minimize(union); c != nil {
		return litInfo{cnf: [][]string{c}}
	}
	return litInfo{}
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

func dedupe(ss []string) []string {
	out := append([]string{}, ss...)
	sort.Strings(out)
	j := 0
	for i, s := range out {
		if i == 0 || s != out[j-1] {
			out[j] = s
			j++
		}
	}
	return out[:j]
}

// minimize turns a set of strings one of which every match contains into
// a clause: nil when it holds the empty string (no requirement), else the
// set without the strings that contain another member (a text holding
// the longer holds the shorter).
func minimize(ss []string) []string {
	ss = dedupe(ss)
	for _, s := range ss {
		if s == "" {
			return nil
		}
	}
	var out []string
	for i, s := range ss {
		implied := false
		for j, t := range ss {
			if i != j && len(t) < len(s) && strings.Contains(s, t) {
				implied = true
				break
			}
		}
		if !implied {
			out = append(out, s)
		}
	}
	return out
}

// best returns the n strongest distinct clauses: longest shortest literal
// first, then fewest literals.
func best(cnf [][]string, n int) [][]string {
	seen := map[string]bool{}
	var out [][]string
	for _, c := range cnf {
		k := strings.Join(c, "\x00")
		if len(c) == 0 || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := shortest(out[i]), shortest(out[j])
		if a != b {
			return a > b
		}
		return len(out[i]) < len(out[j])
	})
	// A clause that a stronger one implies (every literal of the stronger
	// holds one of its literals) adds nothing.
	kept := out[:0]
	for _, c := range out {
		implied := false
		for _, k := range kept {
			if implies(k, c) {
				implied = true
				break
			}
		}
		if !implied {
			kept = append(kept, c)
		}
	}
	out = kept
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// implies reports whether a text satisfying clause a satisfies clause b.
func implies(a, b []string) bool {
	for _, l := range a {
		holds := false
		for _, m := range b {
			if strings.Contains(l, m) {
				holds = true
				break
			}
		}
		if !holds {
			return false
		}
	}
	return true
}

func shortest(c []string) int {
	n := -1
	for _, s := range c {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// A byteRun is a requirement that a match holds k consecutive bytes of
// one class: for expressions whose literals are weak (a Discord token's
// "." and [MN]), the run of key characters every match holds is the
// stronger test. Classes of runes are widened to bytes: every byte of a
// non-ASCII rune (and an invalid byte, which only U+FFFD or "any
// character" matches) is 0x80 or above, so a class holding any non-ASCII
// rune holds all those bytes, and a run of k runes is at least k bytes.
type byteRun struct {
	in [256]bool
	k  int
}

// width is how many byte values the class holds.
func (b *byteRun) width() int {
	n := 0
	for _, x := range b.in {
		if x {
			n++
		}
	}
	return n
}

// holds reports whether s has k consecutive bytes of the class.
//
// It jumps, as nextB64Run does: a run of k starting at i needs
// s[i:i+k] all in the class, and when the last byte of those that is not
// is at j, no run of k starts at i..j, so the next start to try is j+1.
// Text without such runs (prose, paths) is mostly passed over k bytes at
// a time, and no byte is looked at more than twice.
func (b *byteRun) holds(s string) bool {
	k := b.k
	for i := 0; i+k <= len(s); {
		j := i + k - 1
		for j >= i && b.in[s[j]] {
			j--
		}
		if j < i {
			return true
		}
		i = j + 1
	}
	return false
}

// maxRunWidth bounds the classes a run is kept for: one that holds
// spaces and most punctuation as well proves little.
const maxRunWidth = 80

// oneChar returns the byte class of a part that matches exactly one rune.
func oneChar(re *syntax.Regexp) (*[256]bool, bool) {
	var in [256]bool
	addRune := func(r rune) {
		if r < 0x80 {
			in[r] = true
		} else {
			for c := 0x80; c < 256; c++ {
				in[c] = true
			}
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return nil, false
		}
		r := re.Rune[0]
		addRune(r)
		if re.Flags&syntax.FoldCase != 0 {
			for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
				addRune(o)
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= hi && r < 0x80; r++ {
				in[r] = true
			}
			if hi >= 0x80 {
				addRune(0x80)
			}
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		for c := range in {
			in[c] = c != '\n' || re.Op == syntax.OpAnyChar
		}
	default:
		return nil, false
	}
	return &in, true
}

// bestRun returns the longest run of one narrow class every match of re
// holds (k == 0: none).
func bestRun(re *syntax.Regexp) byteRun {
	switch re.Op {
	case syntax.OpCapture:
		return bestRun(re.Sub[0])
	case syntax.OpPlus:
		return bestRun(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min == 0 {
			return byteRun{}
		}
		return bestRun(re.Sub[0])
	case syntax.OpAlternate:
		var out byteRun
		for i, s := range re.Sub {
			b := bestRun(s)
			if b.k == 0 {
				return byteRun{}
			}
			if i == 0 || b.k < out.k {
				out.k = b.k
			}
			for c := range out.in {
				out.in[c] = out.in[c] || b.in[c]
			}
		}
		if out.width() > maxRunWidth {
			return byteRun{}
		}
		return out
	case syntax.OpConcat, syntax.OpLiteral, syntax.OpCharClass:
		return concatRun(flatten(re))
	}
	return byteRun{}
}

// flatten lists the parts of a concatenation in order, with captures
// and multi-rune literals opened (grouping does not change what is
// contiguous).
func flatten(re *syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture:
		return flatten(re.Sub[0])
	case syntax.OpConcat:
		var out []*syntax.Regexp
		for _, s := range re.Sub {
			out = append(out, flatten(s)...)
		}
		return out
	case syntax.OpLiteral:
		if len(re.Rune) > 1 {
			out := make([]*syntax.Regexp, len(re.Rune))
			for i, r := range re.Rune {
				out[i] = &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: []rune{r}}
			}
			return out
		}
	}
	return []*syntax.Regexp{re}
}

// concatRun finds the best run among consecutive parts: a part of one
// rune adds one byte of its class; x+ and x{n,} of one rune add n; x? and
// x* of one rune add nothing but widen the class (what they match sits
// inside the run); an empty-width assertion adds nothing; anything else
// ends the run (and may hold a run of its own).
func concatRun(parts []*syntax.Regexp) byteRun {
	var best, cur byteRun
	keep := func() {
		if cur.k > best.k && cur.width() <= maxRunWidth {
			best = cur
		}
	}
	widen := func(in *[256]bool) {
		w := byteRun{in: cur.in, k: cur.k}
		for c := range w.in {
			w.in[c] = w.in[c] || in[c]
		}
		if w.width() > maxRunWidth {
			// Too wide with what came before: a run may start here
			// instead (any stretch of consecutive parts is one).
			w = byteRun{in: *in}
		}
		cur = w
	}
	for _, p := range parts {
		if in, ok := oneChar(p); ok {
			widen(in)
			cur.k++
			keep()
			continue
		}
		switch p.Op {
		case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			continue
		case syntax.OpPlus, syntax.OpStar, syntax.OpQuest, syntax.OpRepeat:
			if in, ok := oneChar(p.Sub[0]); ok {
				widen(in)
				switch p.Op {
				case syntax.OpPlus:
					cur.k++
				case syntax.OpRepeat:
					cur.k += p.Min
				}
				keep()
				continue
			}
		}
		if b := bestRun(p); b.k > best.k {
			best = b
		}
		cur = byteRun{}
	}
	return best
}
