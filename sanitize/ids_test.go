package sanitize

import (
	"fmt"
	"strings"
	"testing"
)

// TestIDsAgainstStringMap checks the learned-id table (hashes and chunks
// of text, ids.go) against the string map it replaced, on enough ids to
// fill several chunks, with every id under one hash (collide) and with
// the real one: the same pseudonyms in the same order and the same
// replacements.
func TestIDsAgainstStringMap(t *testing.T) {
	for _, collide := range []bool{false, true} {
		t.Run(fmt.Sprintf("collide=%v", collide), func(t *testing.T) {
			n := 20000
			if collide {
				n = 1500 // every look-up walks one chain
			}
			d := newIDs()
			d.collide = collide
			want := map[string]string{}
			count := map[string]int{}
			fams := []string{"session", "uuid", "toolu", "item"}
			var order []string
			for i := range n {
				fam := fams[i%len(fams)]
				v := fmt.Sprintf("%s-%08x-%d", fam, i*2654435761, i%7)
				if i%5 == 4 {
					v = order[i/2] // seen before: learn changes nothing
					fam = familyOf(want[v])
				}
				if _, ok := want[v]; !ok {
					count[fam]++
					if fam == "session" || fam == "uuid" {
						want[v] = fmt.Sprintf("%s-%04d", fam, count[fam])
					} else {
						want[v] = fmt.Sprintf("%s_evcap_%04d", fam, count[fam])
					}
					order = append(order, v)
				}
				e := d.learn(fam, v)
				if got := string(d.pseudonym(e)); got != want[v] {
					t.Fatalf("learn(%q, %q) = %q, want %q", fam, v, got, want[v])
				}
			}
			if d.len() != len(want) {
				t.Fatalf("len %d, want %d", d.len(), len(want))
			}
			for i, v := range order {
				text := "see " + v + ", and " + order[(i*7)%len(order)] + "x " + v
				wantOut := "see " + want[v] + ", and " + order[(i*7)%len(order)] + "x " + want[v]
				if got, ok := d.replace(text); !ok || got != wantOut {
					t.Fatalf("replace(%q) = %q, %v; want %q", text, got, ok, wantOut)
				}
				miss := v + "z"
				if got, ok := d.replace(miss); ok || got != miss {
					t.Fatalf("replace(%q) = %q, %v; want it unchanged", miss, got, ok)
				}
			}
		})
	}
}

// familyOf is the family of a pseudonym the test made.
func familyOf(p string) string {
	if i := strings.Index(p, "_evcap_"); i > 0 {
		return p[:i]
	}
	return p[:strings.IndexByte(p, '-')]
}
