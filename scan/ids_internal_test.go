package scan

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// pseudonymRe is the expression isPseudonym matches by hand.
var pseudonymRe = regexp.MustCompile(`^(?:(?:session|uuid|thread)-[0-9]{4,}|[a-z]+_evcap_[0-9]{4,})$`)

// TestIsPseudonymIsTheRegexp: isPseudonym agrees with the expression on
// random strings made of the pseudonyms' pieces and the bytes around
// their edges.
func TestIsPseudonymIsTheRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	pieces := []string{"session-", "uuid-", "thread-", "session", "-", "_evcap_", "_evcap", "_", "toolu", "msg", "a", "z", "A", "0", "1234", "9", "12", "x_", "é", "\n", ""}
	starts := []string{"session-", "uuid-", "thread-", "toolu_evcap_", "msg_evcap_", "ses_evcap_", ""}
	hits := 0
	n := 40000
	if raceOn {
		n = 5000
	}
	for range n {
		var b strings.Builder
		b.WriteString(starts[r.IntN(len(starts))])
		if r.IntN(2) == 0 {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		for range r.IntN(7) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		if r.IntN(4) == 0 {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		want := pseudonymRe.MatchString(s)
		if got := isPseudonym(s); got != want {
			t.Fatalf("%q: isPseudonym %v, expression %v", s, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < n/20 {
		t.Fatalf("only %d pseudonyms among %d strings: the test exercised little", hits, n)
	}
	for _, s := range []string{"session-0001", "toolu_evcap_0001", "thread-12345", "msg_evcap_123", "Toolu_evcap_0001", "session-0001\n"} {
		if isPseudonym(s) != pseudonymRe.MatchString(s) {
			t.Errorf("%q: isPseudonym %v", s, isPseudonym(s))
		}
	}
}

// idCandsWalk is idCands as it was before it jumped: every token, byte by
// byte.
func idCandsWalk(dst []string, text string) []string {
	for i := 0; i < len(text); {
		if identClass[text[i]] == 0 {
			i++
			continue
		}
		j := i
		digit := false
		for j < len(text) && identClass[text[j]] != 0 {
			digit = digit || identClass[text[j]] == identDigit
			j++
		}
		if j-i >= 6 && j-i <= 200 && idShape(text[i:j], digit) {
			dst = append(dst, text[i:j])
		}
		i = j
	}
	return dst
}

// TestIDCandsJumpIsTheWalk: the jumping idCands gives the tokens the walk
// over every byte gives, in order, on texts of tokens of every length
// around 6 and 200 bytes.
func TestIDCandsJumpIsTheWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	pieces := []string{" ", "x", "_", "-", "1", "ab", "msg_", "item_", "toolu_", "é", "/", "\xff", "12345", "abcde", "abcdef", "a1b2c3d4",
		strings.Repeat("a1", 99), strings.Repeat("a1", 100), strings.Repeat("z", 201)}
	found := 0
	n := 20000
	if raceOn {
		n = 3000
	}
	for range n {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		want := idCandsWalk(nil, text)
		if got := idCands(nil, text); strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("%q: idCands %q, the walk %q", text, got, want)
		}
		found += len(want)
	}
	if found < n/5 {
		t.Fatalf("only %d tokens in all: the test exercised little", found)
	}
}

// idShapeLoop is idShape as it was, trying every prefix in turn.
func idShapeLoop(v string, digit bool) bool {
	if !idFirst[v[0]] {
		return len(v) >= 8 && digit
	}
	for _, p := range idPrefixes {
		if strings.HasPrefix(v, p) {
			return len(v) >= len(p)+4
		}
	}
	if len(v) >= 8 && digit {
		return true
	}
	rest, ok := strings.CutPrefix(v, "item_")
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// TestIDShapeIsTheLoop: idShape, which finds the one prefix that can start
// a token by its first "_", answers as trying every prefix did.
func TestIDShapeIsTheLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	pieces := append([]string{"_", "-", "1", "a", "t", "i", "item_", "tool", "srv", "u_", "_x"}, idPrefixes...)
	yes, prefixed := 0, 0
	for range 50000 {
		var b strings.Builder
		for b.Len() < 6 || r.IntN(4) > 0 {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		v := b.String()
		digit := strings.ContainsAny(v, "0123456789")
		want := idShapeLoop(v, digit)
		if got := idShape(v, digit); got != want {
			t.Fatalf("%q: idShape %v, the loop %v", v, got, want)
		}
		if want {
			yes++
		}
		for _, p := range idPrefixes {
			if strings.HasPrefix(v, p) {
				prefixed++
				break
			}
		}
	}
	if yes < 5000 || yes > 45000 || prefixed < 5000 {
		t.Fatalf("%d of 50000 tokens are ids, %d start with a prefix: the test exercised little", yes, prefixed)
	}
}
