package scan

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// generate appends to b a random string the expression re can match:
// literals in any of their case spellings (the Kelvin sign and the long s
// included), class members from any of the class's ranges, repeats
// bounded (up to four past the minimum).
func generate(r *rand.Rand, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				orbit := []rune{c}
				for o := unicode.SimpleFold(c); o != c; o = unicode.SimpleFold(o) {
					orbit = append(orbit, o)
				}
				c = orbit[r.IntN(len(orbit))]
			}
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return
		}
		i := 2 * r.IntN(len(re.Rune)/2)
		lo, hi := re.Rune[i], re.Rune[i+1]
		c := lo + rune(r.Int64N(int64(hi-lo)+1))
		if hi-lo > 1000 && r.IntN(2) == 0 {
			// Huge ranges (negated classes): mostly near their ends.
			c = lo + rune(r.IntN(200))
		}
		b.WriteRune(c)
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteRune(contextRunes[r.IntN(len(contextRunes))])
	case syntax.OpCapture:
		generate(r, re.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			generate(r, s, b)
		}
	case syntax.OpAlternate:
		generate(r, re.Sub[r.IntN(len(re.Sub))], b)
	case syntax.OpQuest:
		if r.IntN(2) == 0 {
			generate(r, re.Sub[0], b)
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		lo, hi := 0, 4
		switch re.Op {
		case syntax.OpPlus:
			lo, hi = 1, 5
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+4 {
				hi = lo + 4
			}
		}
		for range lo + r.IntN(hi-lo+1) {
			generate(r, re.Sub[0], b)
		}
	}
}

// contextRunes are what random context is made of: letters, digits,
// punctuation the rules care about, spaces and newlines, the two
// non-ASCII runes that fold to ASCII, other non-ASCII runes and U+FFFD.
var contextRunes = []rune("aAbBkKsSzZ019 _-./:=@\"'\\\t\n[]{}%+\u212A\u017Fé€\uFFFD")

// randomContext returns up to n runes of random context, sometimes with
// an invalid byte.
func randomContext(r *rand.Rand, n int) string {
	var b strings.Builder
	for range r.IntN(n + 1) {
		if r.IntN(40) == 0 {
			b.WriteByte(0xff)
			continue
		}
		b.WriteRune(contextRunes[r.IntN(len(contextRunes))])
	}
	return b.String()
}

// matchOf returns a random string matching re.
func matchOf(r *rand.Rand, re *regexp.Regexp) string {
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	generate(r, p.Simplify(), &b)
	s := b.String()
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}
