package jsonwalk

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// offsetsByChar is the mapping RawOffsets must give, built one character
// at a time with charAt: every decoded byte maps to where its character
// starts.
func offsetsByChar(raw []byte) (dec []byte, offs []int) {
	for i := 0; i < len(raw); {
		w, n := charAt(raw, i)
		dec = AppendDecoded(dec, raw[i:i+n])
		if len(dec) != len(offs)+w {
			panic("charAt and AppendDecoded disagree")
		}
		for range w {
			offs = append(offs, i)
		}
		i += n
	}
	return dec, append(offs, len(raw))
}

// TestDecodeAndOffsets was redact's test of its own decoder, which this
// package's replaced (moved here with it; invalid UTF-8 now decodes to
// U+FFFD as in encoding/json).
func TestDecodeAndOffsets(t *testing.T) {
	cases := []string{
		``, `plain`, `a\nb`, `\"q\"`, `\\`, `\/`, `\u00e9t\u00E9`, `\ud83d\ude00!`, `\ud83d`, `\ud83dx`,
		`\ud83d\u0041`, `\u12`, `tail\`, `ü\tü`, `\x`, "\xff\\n", `\b\f\r\t`, "a\xe2\x82b",
	}
	want := map[string]string{`a\nb`: "a\nb", `\"q\"`: `"q"`, `\\`: `\`, `\/`: `/`, `\u00e9t\u00E9`: "été",
		`\ud83d\ude00!`: "😀!", `\ud83d`: "\ufffd", `\ud83d\u0041`: "\ufffdA", `tail\`: `tail\`,
		"\xff\\n": "\ufffd\n", "a\xe2\x82b": "a\ufffd\ufffdb"}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte(`\\\\u0123abcdefnrtd8"/` + "é\xff")
	for range 5000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		raw := []byte(c)
		dec, offs := offsetsByChar(raw)
		if got := AppendDecoded(nil, raw); !bytes.Equal(got, dec) {
			t.Fatalf("AppendDecoded(%q) = %q, want %q", c, got, dec)
		}
		if w, ok := want[c]; ok && string(dec) != w {
			t.Errorf("decoding %q gives %q, want %q", c, dec, w)
		}
		pos := make([]int, len(dec)+1)
		for i := range pos {
			pos[i] = i
		}
		RawOffsets(raw, pos)
		for i := range pos {
			if pos[i] != offs[i] {
				t.Fatalf("RawOffsets(%q)[%d] = %d, want %d", c, i, pos[i], offs[i])
			}
		}
	}
}

// TestDecodeLongRuns checks AppendDecoded and RawOffsets, which skip
// plain ASCII eight bytes at a time, on strings with long plain runs and
// an escape, a multi-byte rune or an invalid byte at every offset of a
// word, against the decoding one character at a time.
func TestDecodeLongRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 19))
	odd := []string{`\n`, `\\`, `\"`, `\u00e9`, `\ud83d\ude00`, "é", "\xff", "\x7f", `\/`, "€"}
	n := 3000
	if raceEnabled {
		n = 150
	}
	for range n {
		var b []byte
		for len(b) < 40+rng.IntN(200) {
			for range rng.IntN(20) {
				b = append(b, byte('a'+rng.IntN(26)))
			}
			b = append(b, odd[rng.IntN(len(odd))]...)
		}
		dec, offs := offsetsByChar(b)
		if got := AppendDecoded(nil, b); !bytes.Equal(got, dec) {
			t.Fatalf("AppendDecoded(%q) = %q, want %q", b, got, dec)
		}
		pos := make([]int, len(dec)+1)
		for i := range pos {
			pos[i] = i
		}
		RawOffsets(b, pos)
		for i := range pos {
			if pos[i] != offs[i] {
				t.Fatalf("RawOffsets(%q)[%d] = %d, want %d", b, i, pos[i], offs[i])
			}
		}
	}
}

// TestRawOffsetsFromSyncPoint checks rawOffsetsLen, which maps the
// positions after a long unmapped stretch from a character boundary near
// them, against RawOffsets, on long strings of escapes, multi-byte runes
// and invalid bytes, with positions in the head, the tail and at the end.
func TestRawOffsetsFromSyncPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 21))
	odd := []string{`\n`, `\\`, `\"`, `\u00e9`, `\ud83d\ude00`, `\u0041`, "é", "\xff", `\/`, `\t`, "a", "1", "F", " "}
	synced := 0
	n := 40
	if raceEnabled {
		n = 1
	}
	for range n {
		// Random blocks of pieces, each repeated a random number of
		// times (drawing every piece of a 300 KB string is slow under
		// the race detector).
		var b []byte
		size := 3*syncMin + rng.IntN(2*syncMin)
		for len(b) < size {
			var blk []byte
			for len(blk) < 512 {
				if rng.IntN(3) == 0 {
					for range rng.IntN(30) {
						blk = append(blk, byte('g'+rng.IntN(20)))
					}
				}
				blk = append(blk, odd[rng.IntN(len(odd))]...)
			}
			for range 1 + rng.IntN(16) {
				b = append(b, blk...)
			}
		}
		decLen := len(AppendDecoded(nil, b))
		var pos []int
		for range rng.IntN(4) {
			pos = append(pos, rng.IntN(decLen/8+1))
		}
		for range 1 + rng.IntN(4) {
			pos = append(pos, decLen-rng.IntN(decLen/8+1))
		}
		if rng.IntN(3) == 0 {
			pos = append(pos, decLen)
		}
		slices.Sort(pos)
		want := slices.Clone(pos)
		RawOffsets(b, want)
		got := slices.Clone(pos)
		rawOffsetsLen(b, decLen, got)
		if !slices.Equal(got, want) {
			t.Fatalf("positions %v of a %d-byte string: got %v, want %v", pos, len(b), got, want)
		}
		// Count the strings mapped from a sync point: a gap of syncMin
		// before the first tail position, and a boundary found.
		k := slices.IndexFunc(pos, func(p int) bool { return p > decLen/2 })
		gap := pos[k]
		if k > 0 {
			gap -= pos[k-1]
		}
		if _, _, ok := syncPoint(b, decLen, pos[k]); ok && gap >= syncMin && pos[k] < decLen {
			synced++
		}
	}
	if synced < (n+1)/2 {
		t.Errorf("only %d of %d strings had a sync point: the comparison says little", synced, n)
	}
}

// TestBoundaryByte checks what syncPoint relies on: every byte
// boundaryByte accepts begins a character (in the one-character-at-a-time
// decoding), and decodedLen of the rest from there is what that
// decoding gives.
func TestBoundaryByte(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 22))
	odd := []string{`\n`, `\\`, `\"`, `\u00e9`, `\ud83d\ude00`, `\u0041`, "é", "\xff", `\/`, `\t`, `\b`, `\f`, `\r`, "g", "z", "1", "F", " "}
	checked, n := 0, 2000
	if raceEnabled {
		n = 300
	}
	for range n {
		var b []byte
		for range 1 + rng.IntN(20) {
			b = append(b, odd[rng.IntN(len(odd))]...)
		}
		dec, offs := offsetsByChar(b)
		starts := map[int]int{} // raw index -> decoded offset of the character there
		for d := len(offs) - 1; d >= 0; d-- {
			starts[offs[d]] = d
		}
		for q := range b {
			if !boundaryByte(b[q]) {
				continue
			}
			d, ok := starts[q]
			if !ok {
				t.Fatalf("%q: boundaryByte accepts byte %d (%q), inside a character", b, q, b[q])
			}
			if n := decodedLen(b[q:]); n != len(dec)-d {
				t.Fatalf("%q: decodedLen from %d = %d, want %d", b, q, n, len(dec)-d)
			}
			checked++
		}
	}
	if checked < n/2 {
		t.Errorf("only %d boundaries checked", checked)
	}
}
