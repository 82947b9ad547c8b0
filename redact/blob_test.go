package redact

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// blobSpansByByte is blobSpans as it was before it skipped ahead: every
// maximal run looked at byte by byte.
func (r *Redactor) blobSpansByByte(text []byte, protect func() [][2]int, spans []span, prio int) []span {
	for i := 0; i < len(text); {
		if !isB64Byte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isB64Byte(text[j]) {
			j++
		}
		e := j
		for e < len(text) && e < j+2 && text[e] == '=' {
			e++
		}
		if j-i >= r.blobMin && leftBoundary(text, i) && hasDigit(text[i:j]) && hasUpper(text[i:j]) && hasLower(text[i:j]) && !overlapsAny(i, e, protect()) {
			spans = append(spans, span{start: i, end: e, rule: RuleBase64Blob, repl: binaryToken(sniffBase64(text[i:e]), base64Len(text[i:e])), prio: prio})
		}
		i = e
		if i == j {
			i = j + 1
		}
	}
	return spans
}

func TestBlobSpansSkipAhead(t *testing.T) {
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("aB3+/=== -_\\n")
	found := 0
	for _, min := range []int{1, 2, 3, 8, 16} {
		r.blobMin = min
		for range 5000 {
			b := make([]byte, rng.IntN(64))
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			prot := func() [][2]int { return [][2]int{{10, 12}} }
			got := r.blobSpans(b, prot, nil, 1)
			want := r.blobSpansByByte(b, prot, nil, 1)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("blobMin %d, %q: blobSpans = %v, want %v", min, b, got, want)
			}
			found += len(got)
		}
	}
	if found < 1000 {
		t.Errorf("only %d blobs in the random texts: the comparison says little", found)
	}
}
