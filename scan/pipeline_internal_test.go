package scan

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

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
