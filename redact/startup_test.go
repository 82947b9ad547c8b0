package redact

import "testing"

// TestUpstreamRulesCompile builds every upstream rule's matcher, as its
// first match would: each regexp compiles, and every rule anchorAt chose to
// run anchored gets its anchored regexp (its fallback, matching unanchored,
// would change which literals hold a stream's text: buildHoldLits decided
// on anchorLits before anything compiled).
func TestUpstreamRulesCompile(t *testing.T) {
	rules, err := buildUpstream()
	if err != nil {
		t.Fatal(err)
	}
	anchored := 0
	for _, ru := range rules {
		wasAnchored := ru.anchorLits != nil
		ru.ready()
		if ru.re == nil {
			t.Errorf("%s: no regexp after ready", ru.id)
			continue
		}
		if wasAnchored {
			anchored++
			if ru.anchored == nil {
				t.Errorf("%s: anchorAt chose an anchored form that does not compile", ru.id)
			} else if ru.anchored.NumSubexp() != ru.re.NumSubexp() {
				t.Errorf("%s: anchored form has %d groups, the regexp %d", ru.id, ru.anchored.NumSubexp(), ru.re.NumSubexp())
			}
		}
		if want := -1; ru.group < 0 && ru.re.NumSubexp() == 0 {
			t.Errorf("%s: group %d but the regexp has no groups", ru.id, want)
		}
	}
	if anchored == 0 {
		t.Fatal("no upstream rule runs anchored: anchorAt found nothing")
	}
	t.Logf("%d upstream rules, %d anchored", len(rules), anchored)
}

// BenchmarkBuildUpstream is the start-up cost of the upstream rule set that
// every redacting command pays once.
func BenchmarkBuildUpstream(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := buildUpstream(); err != nil {
			b.Fatal(err)
		}
	}
}
