package scan

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// mayDeclareContains is mayDeclare as it was, with a search per word.
func mayDeclareContains(raw []byte) bool {
	if bytes.Contains(raw, []byte("cwd")) || bytes.Contains(raw, []byte("directory")) {
		return true
	}
	for i := bytes.Index(raw, []byte(`\u00`)); i >= 0; {
		if i+4 < len(raw) && (raw[i+4] == '6' || raw[i+4] == '7') {
			return true
		}
		j := bytes.Index(raw[i+1:], []byte(`\u00`))
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// TestMayDeclareIsTheSearches: the one search for "d" answers as the
// searches for each word did.
func TestMayDeclareIsTheSearches(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	pieces := []string{"c", "w", "d", "cw", "wd", "cwd", "dir", "directory", "director", "irectory", "\\u00", "\\u006", "\\u0077", "\\u008", "x", " ", `"`}
	yes := 0
	for range 20000 {
		var b []byte
		for range r.IntN(8) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		want := mayDeclareContains(b)
		if got := mayDeclare(b); got != want {
			t.Fatalf("%q: mayDeclare %v, the searches %v", b, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 2000 || yes > 18000 {
		t.Fatalf("%d of 20000 texts may declare: the test exercised little", yes)
	}
}

// TestLongLinesBetweenShortOnes: a text file whose long lines (past
// bigLine, each checked while the reader reads on behind it) come alone,
// back to back and between short lines gives, in order, the findings
// its lines give each on its own: nothing of a line is lost, doubled or
// out of place while the lines behind a long line are checked first.
func TestLongLinesBetweenShortOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	secret := func() string {
		for {
			// (one without a newline: each line stays one)
			if x := RandomSecret(r); !strings.Contains(x, "\n") {
				return x
			}
		}
	}
	filler := bytes.Repeat([]byte("plain words and more words "), bigLine/27+1)
	n := 60
	if raceOn {
		n = 16
	}
	var lines [][]byte
	for i := range n {
		var l []byte
		if i%7 == 0 || i%7 == 1 || i == n-1 {
			// A long line, a secret at a random place of it.
			cut := r.IntN(len(filler))
			l = append(append(append(l, filler[:cut]...), " "+secret()+" "...), filler[cut:]...)
		} else {
			for range 1 + r.IntN(300) {
				l = append(l, "word "+secret()+" "...)
			}
		}
		lines = append(lines, l)
	}
	var want []Finding
	for i, l := range lines {
		got, err := s.Read(bytes.NewReader(append(l, '\n')), "one", KindFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range got {
			f.Line += int64(i)
			want = append(want, f)
		}
	}
	got, err := s.Read(bytes.NewReader(append(bytes.Join(lines, []byte("\n")), '\n')), "one", KindFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < n {
		t.Fatalf("the lines give %d findings: the test exercised little", len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("%d findings, the lines one by one %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("finding %d: %+v, the lines one by one %+v", i, got[i], want[i])
		}
	}
}
