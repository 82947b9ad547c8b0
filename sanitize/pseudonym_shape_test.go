package sanitize

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestIsPseudonymMatchesPattern checks the hand-written IsPseudonym against
// pseudonymRe on pseudonyms, near misses and random strings over the
// bytes that matter.
func TestIsPseudonymMatchesPattern(t *testing.T) {
	cases := []string{"", "session-0001", "session-001", "session-00012", "uuid-0002", "thread-0001x",
		"toolu_evcap_0003", "ses_evcap_0001", "item_evcap_12345", "_evcap_0001", "Toolu_evcap_0001",
		"toolu_evcap_001", "toolu_evcap_00a1", "a_evcap_0000", "a-b_evcap_0001", "session-x_evcap_0001",
		"session_evcap_0001", "uuid-", "thread-12345678901234567890", "toolu_evcap_0001\n"}
	alphabet := []byte("sesionuidthrad-_evcap0123456789xZ\n")
	r := rand.New(rand.NewPCG(1, 2))
	for range 30000 {
		n := r.IntN(20)
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
		// Mutations of real shapes reach the interesting branches more often.
		base := []string{"session-", "uuid-", "thread-", "toolu_evcap_", "ses_evcap_"}[r.IntN(5)]
		cases = append(cases, base+string(b))
		digits := make([]byte, r.IntN(7))
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		cases = append(cases, base+string(digits))
	}
	matched := 0
	for _, s := range cases {
		want := pseudonymRe.MatchString(s)
		if want {
			matched++
		}
		if got := IsPseudonym(s); got != want {
			t.Fatalf("IsPseudonym(%q) = %v, pseudonymRe says %v", s, got, want)
		}
	}
	if matched < 100 {
		t.Fatalf("only %d of %d cases are pseudonyms: the comparison sees too few", matched, len(cases))
	}
}

// TestFormatOffset pins the offset spelling.
func TestFormatOffset(t *testing.T) {
	for d, want := range map[int64]string{0: "+0.000s", 1250: "+1.250s", 999: "+0.999s", -5: "-0.005s",
		-61001: "-61.001s", 3600000: "+3600.000s", 7: "+0.007s", 10: "+0.010s"} {
		if got := formatOffset(msDuration(d)); got != want {
			t.Errorf("formatOffset(%d ms) = %q, want %q", d, got, want)
		}
	}
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
