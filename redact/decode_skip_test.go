package redact

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"reflect"
	"testing"
	"unicode/utf8"
)

// base64RunsByByte lists the runs decodedSpans hands to base64Spans as
// it found them before it skipped ahead: every maximal run looked at byte
// by byte.
func base64RunsByByte(text []byte) [][3]int {
	var out [][3]int
	for i := 0; i < len(text); {
		if !isB64URLByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isB64URLByte(text[j]) {
			j++
		}
		e := j
		for e < len(text) && e < j+2 && text[e] == '=' {
			e++
		}
		if j-i >= minB64Run && (i == 0 || !isIdentByte(text[i-1]) || text[i-1] == '-' || text[i-1] == '_') {
			out = append(out, [3]int{i, j, e})
		}
		i = e
		if i == j {
			i = j + 1
		}
	}
	return out
}

// TestBase64RunsSkipAhead compares the runs nextBase64Run finds, taken
// as decodedSpans takes them, with the byte-by-byte search on random
// texts of base64 bytes, padding and separators, and checks that the
// spans decodedSpans finds are those of decoding each of those runs.
func TestBase64RunsSkipAhead(t *testing.T) {
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("aB3+/-_== .x\"")
	runs, decoded := 0, 0
	for range 20000 {
		b := make([]byte, rng.IntN(90))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = alphabet[rng.IntN(3)]
			}
		}
		if rng.IntN(3) == 0 {
			// A run that decodes to a secret, so that some spans come out.
			at := rng.IntN(len(b) + 1)
			enc := " " + base64.RawStdEncoding.EncodeToString([]byte("password=Qz7xK2mP9vL4nR8t")) + " "
			b = append(b[:at:at], append([]byte(enc), b[at:]...)...)
		}
		want := base64RunsByByte(b)
		runs += len(want)
		var got [][3]int
		for i := 0; ; {
			s, j, e := nextBase64Run(b, i)
			if s < 0 {
				break
			}
			if j-s >= minB64Run && (s == 0 || !isIdentByte(b[s-1]) || b[s-1] == '-' || b[s-1] == '_') {
				got = append(got, [3]int{s, j, e})
			}
			i = e
			if i == j {
				i = j + 1
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: runs %v, byte by byte %v", b, got, want)
		}
		// decodedSpans at the last depth finds nothing; one above it, its
		// base64 spans are those of the runs above.
		var viaRuns []span
		for _, w := range want {
			viaRuns = r.base64Spans(b, w[0], w[1], w[2], maxDecodeDepth-1, viaRuns)
		}
		if bytes.IndexByte(b, '%') < 0 && !hasHidingEscape(b) {
			got := r.decodedSpans(b, maxDecodeDepth-1, nil)
			if !reflect.DeepEqual(got, viaRuns) {
				t.Fatalf("%q: decodedSpans %v, from the runs %v", b, got, viaRuns)
			}
			decoded += len(got)
		}
	}
	if runs < 2000 || decoded < 1000 {
		t.Errorf("only %d runs and %d spans in decoded runs in the random texts: the comparison says little", runs, decoded)
	}
}

// printableBase64Alloc is printableBase64 as it was before it checked a
// run before allocating.
func printableBase64Alloc(enc *base64.Encoding, b []byte) ([]byte, bool) {
	var head [12]byte
	if n, err := enc.Decode(head[:], b[:min(len(b), 16)/4*4]); err != nil || !printable(head[:n]) {
		return nil, false
	}
	out := make([]byte, 0, len(b)*3/4+3)
	var buf [3]byte
	for k := 0; k < len(b); k += 4 {
		q := b[k:min(k+4, len(b))]
		m, err := enc.Decode(buf[:], q)
		if err != nil {
			return nil, false
		}
		for _, c := range buf[:m] {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return nil, false
			}
		}
		out = append(out, buf[:m]...)
		if k >= 4 && k%64 == 0 && !utf8.Valid(trimPartialRune(out)) {
			return nil, false
		}
	}
	return out, utf8.Valid(out)
}

// TestPrintableBase64 compares printableBase64 with the version that
// allocated first, on the encodings of random text (ASCII, multi-byte
// characters, control bytes, cut anywhere) and on random base64.
func TestPrintableBase64(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"a", "Z", " ", "\n", "é", "日本", "🚀", "\x01", "\x7f", "\xff", "\xc3", "k=v;"}
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	ok := 0
	for k := range 30000 {
		var in []byte
		if k%3 == 2 {
			in = make([]byte, 16+rng.IntN(200))
			for i := range in {
				in[i] = b64[rng.IntN(len(b64))]
			}
		} else {
			var txt []byte
			for range rng.IntN(120) {
				p := pieces[rng.IntN(len(pieces))]
				if k%3 == 1 && rng.IntN(40) != 0 {
					p = pieces[rng.IntN(7)] // mostly printable
				}
				txt = append(txt, p...)
			}
			in = []byte(base64.RawStdEncoding.EncodeToString(txt))
			in = in[:rng.IntN(len(in)+1)]
		}
		if len(in)%4 == 1 {
			in = in[:len(in)-1]
		}
		got, gotOK := printableBase64(base64.RawStdEncoding, in)
		want, wantOK := printableBase64Alloc(base64.RawStdEncoding, in)
		if gotOK != wantOK || gotOK && !bytes.Equal(got, want) {
			t.Fatalf("printableBase64(%q) = %q, %v; allocating first %q, %v", in, got, gotOK, want, wantOK)
		}
		if gotOK {
			ok++
		}
	}
	if ok < 3000 {
		t.Errorf("only %d printable runs: the comparison says little", ok)
	}
}

// percentDecodeByByte is percentDecode as it was before it jumped
// between '%' bytes.
func percentDecodeByByte(text []byte) ([]byte, bool) {
	var out []byte
	last := 0
	for i := 0; i+2 < len(text); i++ {
		if text[i] != '%' {
			continue
		}
		h, ok1 := unhex(text[i+1])
		l, ok2 := unhex(text[i+2])
		if !ok1 || !ok2 {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(text))
		}
		out = append(out, text[last:i]...)
		out = append(out, h<<4|l)
		last = i + 3
		i += 2
	}
	if out == nil {
		return nil, false
	}
	return append(out, text[last:]...), true
}

func TestPercentDecodeJumps(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	alphabet := []byte("%%aF3x 2")
	decoded := 0
	for range 20000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		got, gotOK := percentDecode(b)
		want, wantOK := percentDecodeByByte(b)
		if gotOK != wantOK || !bytes.Equal(got, want) {
			t.Fatalf("percentDecode(%q) = %q, %v; byte by byte %q, %v", b, got, gotOK, want, wantOK)
		}
		if gotOK {
			decoded++
		}
	}
	if decoded < 1000 {
		t.Errorf("only %d texts decoded: the comparison says little", decoded)
	}
}
