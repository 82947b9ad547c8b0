package redact

import (
	"math/rand/v2"
	"testing"
)

// naiveLitStart is holdPoint's literal search as it was before holdIndex:
// each literal tried in order with its own passes, the first strictly
// earlier position winning.
func naiveLitStart(w []byte, ts int, lits []holdLit) (int, string) {
	tok := w[ts:]
	hold, rule := -1, ""
	set := func(p int, id string) {
		if hold < 0 || p < hold {
			hold, rule = p, id
		}
	}
	for _, hl := range lits {
		if p := lastIndexLit(tok, hl); p >= 0 && leftBoundary(w, ts+p) {
			set(ts+p, hl.rule)
		}
		for l := min(len(hl.text)-1, len(tok)); l >= hl.minPrefix; l-- {
			if equalLit(tok[len(tok)-l:], hl.text[:l], hl.fold) && leftBoundary(w, len(w)-l) {
				set(len(w)-l, hl.rule)
				break
			}
		}
	}
	return hold, rule
}

// TestHoldIndexMatchesNaive: the one-pass literal search finds the same
// hold position and rule as trying every literal, on trailing tokens made
// of literal pieces, their prefixes, case changes and key bytes.
func TestHoldIndexMatchesNaive(t *testing.T) {
	r := testRedactor(t)
	lits := r.holdLits
	rng := rand.New(rand.NewPCG(16, 2))
	pieces := []string{"x", "Q7", "_", "-", ".", "a", "ZZ", " ", "=", "/"}
	n := 20000
	if testing.Short() {
		n = 3000
	}
	for k := range n {
		var b []byte
		if rng.IntN(3) == 0 {
			b = append(b, "say "...)
		}
		for range 1 + rng.IntN(4) {
			switch rng.IntN(3) {
			case 0:
				b = append(b, pieces[rng.IntN(len(pieces))]...)
			default:
				hl := lits[rng.IntN(len(lits))]
				l := 1 + rng.IntN(len(hl.text))
				for _, c := range hl.text[:l] {
					if rng.IntN(4) == 0 && isAlpha(c) {
						c ^= 0x20
					}
					b = append(b, c)
				}
			}
		}
		ts := len(b)
		for ts > 0 && ts > len(b)-probeReach && isKeyByte(b[ts-1]) {
			ts--
		}
		if ts == len(b) {
			continue
		}
		gp, gr := r.holdIdx.litStart(b, ts, lits)
		wp, wr := naiveLitStart(b, ts, lits)
		if gp != wp || gr != wr {
			t.Fatalf("case %d, %q (token from %d): holdIndex %d %q, naive %d %q", k, b, ts, gp, gr, wp, wr)
		}
	}
}

// TestEveryRuleGated: every secret rule has a non-empty literal keyword,
// so the keyword prefilter gates all of them (a rule with none would run
// its regexp on every text, and one whose keywords were wrong would lose
// recall, which the recall tests would show).
func TestEveryRuleGated(t *testing.T) {
	r := testRedactor(t)
	if len(r.rules) > maxFiltered {
		t.Fatalf("%d rules, more than the %d the prefilter has bits for", len(r.rules), maxFiltered)
	}
	for _, ru := range r.rules {
		if len(ru.keywords) == 0 {
			t.Errorf("rule %s has no keyword", ru.id)
		}
		for _, k := range ru.keywords {
			if len(k) == 0 {
				t.Errorf("rule %s has an empty keyword", ru.id)
			}
		}
	}
	if !r.keywords.always.isZero() {
		t.Errorf("the prefilter has keywords that match every text")
	}
}
