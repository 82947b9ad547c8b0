package redact

import (
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"
)

// sampleFor builds a random string that the regexp can match: repeats take
// their minimum (a few dozen for open ones), alternations a random branch,
// character classes a random printable ASCII member.
func sampleFor(re *syntax.Regexp, rng *rand.Rand, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		var pool []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := max(re.Rune[i], 0x21); r <= min(re.Rune[i+1], 0x7e); r++ {
				pool = append(pool, r)
			}
		}
		if len(pool) == 0 && len(re.Rune) > 0 {
			pool = []rune{re.Rune[0]}
		}
		if len(pool) > 0 {
			b.WriteRune(pool[rng.IntN(len(pool))])
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(alnum[rng.IntN(len(alnum))])
	case syntax.OpCapture:
		sampleFor(re.Sub[0], rng, b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			sampleFor(s, rng, b)
		}
	case syntax.OpAlternate:
		sampleFor(re.Sub[rng.IntN(len(re.Sub))], rng, b)
	case syntax.OpStar, syntax.OpQuest:
	case syntax.OpPlus:
		for range 20 {
			sampleFor(re.Sub[0], rng, b)
		}
	case syntax.OpRepeat:
		n := re.Min
		if re.Min > 0 && re.Max != re.Min {
			n = max(re.Min, 24)
			if re.Max > 0 {
				n = min(n, re.Max)
			}
		}
		for range n {
			sampleFor(re.Sub[0], rng, b)
		}
	}
}

// TestUpstreamRecall plants, for every upstream rule, a random string its
// own regexp, entropy and allowlists accept (what gitleaks would flag),
// and compares how many this package's own rules find with how many the
// adopted set finds. This is the comparison that decided the adoption.
func TestUpstreamRecall(t *testing.T) {
	up, err := upstreamRules()
	if err != nil {
		t.Fatal(err)
	}
	ownIDs := map[string]bool{}
	for _, ru := range append(append(ownRules(), envCredentialRules()...), credentialAssignmentRule()) {
		ownIDs[ru.id] = true
	}
	var disable []string
	for _, ru := range up {
		if !ownIDs[ru.id] && upstreamLeftOut[ru.id] == "" {
			disable = append(disable, ru.id)
		}
	}
	full, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	own, err := New(Options{Config: Config{Disable: disable}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(13, 1))
	rules, samples, byOwn, byFull := 0, 0, 0, 0
	var missed []string
	for _, ru := range up {
		parsed, err := syntax.Parse(ru.rawRegex, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", ru.id, err)
		}
		var sample, secret string
		for range 50 {
			var b strings.Builder
			sampleFor(parsed.Simplify(), rng, &b)
			s := b.String()
			ru.ready()
			m := ru.re.FindSubmatchIndex([]byte(s))
			if m == nil || !utf8.ValidString(s) || !ru.mayMatch([]byte(s)) {
				continue // gitleaks too looks only at text holding a keyword
			}
			if st, en, ok := ru.upstreamSecret([]byte(s), m); ok && en-st >= 8 {
				sample, secret = s, s[st:en]
				break
			}
		}
		rules++
		if sample == "" {
			continue // no sample the rule itself accepts: not counted
		}
		samples++
		if out, _ := own.Text([]byte(sample)); !strings.Contains(string(out), secret) {
			byOwn++
		}
		if out, _ := full.Text([]byte(sample)); !strings.Contains(string(out), secret) {
			byFull++
		} else {
			missed = append(missed, ru.id)
			if testing.Verbose() {
				t.Logf("%s: %q -> %q (secret %q)", ru.id, sample, out, secret)
			}
		}
	}
	t.Logf("upstream rules %d, with an accepted sample %d; secrets removed by our own rules %d (%.1f%%), by own + upstream %d (%.1f%%)",
		rules, samples, byOwn, 100*float64(byOwn)/float64(samples), byFull, 100*float64(byFull)/float64(samples))
	if len(missed) > 0 {
		t.Logf("missed by the adopted set: %v", missed)
	}
	if samples < rules*8/10 {
		t.Errorf("only %d of %d rules got a sample: the generator is too weak to judge", samples, rules)
	}
	if byFull <= byOwn || byFull < samples*95/100 {
		t.Errorf("adopted set removes %d of %d, own rules %d: want more than own and at least 95%%", byFull, samples, byOwn)
	}
}
