package jsonwalk

import (
	"bytes"
	"math/rand/v2"
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
	for range 3000 {
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
