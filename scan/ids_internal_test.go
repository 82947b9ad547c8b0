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
