package redact

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestLiveAnchorsFindTheSame checks, for every upstream rule run
// anchored, that searching only its live anchor literals finds what
// searching all of them finds (as it did before liveAnchors), on random texts made of its literals in
// both cases, the literals of its regexp's start, key characters and
// separators; and that some rule loses a literal (the test then tests
// something) while some texts match.
func TestLiveAnchorsFindTheSame(t *testing.T) {
	up, err := upstreamRules()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	pieces := []string{" ", "_", "-", ".", "=", ":", "\"", "A", "KIA", "ASIA", "ey", "sc_", "authress_", "sk-", "T3BlbkFJ", "prod_", "test_"}
	const key = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0234567"
	dropped, matched := 0, 0
	for _, ru := range up {
		if ru.anchorLits == nil {
			continue
		}
		ru.ready()
		if ru.anchored == nil {
			continue
		}
		if len(ru.anchorLive) < len(ru.anchorLits) {
			dropped++
		}
		for range raceScaled(600) {
			var b []byte
			for range rng.IntN(12) {
				switch rng.IntN(3) {
				case 0:
					l := ru.anchorLits[rng.IntN(len(ru.anchorLits))]
					for _, c := range l {
						if rng.IntN(2) == 0 && c >= 'a' && c <= 'z' {
							c -= 'a' - 'A'
						}
						b = append(b, c)
					}
				case 1:
					b = append(b, pieces[rng.IntN(len(pieces))]...)
				default:
					for range rng.IntN(40) {
						b = append(b, key[rng.IntN(len(key))])
					}
				}
			}
			got, want := ru.anchoredMatches(b), ru.anchoredMatchesAt(b, ru.anchorLits)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on %q: live anchors %q find %v, all anchors %q find %v", ru.id, b, ru.anchorLive, got, ru.anchorLits, want)
			}
			if len(got) > 0 {
				matched++
			}
		}
	}
	if dropped == 0 || matched < raceScaled(100) {
		t.Errorf("%d rules lost an anchor literal, %d texts matched: the comparison says little", dropped, matched)
	}
}

// raceScaled is n, or a quarter of it under the race detector.
func raceScaled(n int) int {
	if raceEnabled {
		return n / 4
	}
	return n
}
