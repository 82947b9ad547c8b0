package redact

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// offsetsByChar is the mapping rawOffsets must give, built one character
// at a time: every decoded byte maps to where its character starts.
func offsetsByChar(raw []byte) (dec []byte, offs []int) {
	for i := 0; i < len(raw); {
		n0 := len(dec)
		var n int
		dec, n = appendChar(dec, raw, i)
		for range len(dec) - n0 {
			offs = append(offs, i)
		}
		i += n
	}
	return dec, append(offs, len(raw))
}

func TestDecodeAndOffsets(t *testing.T) {
	cases := []string{
		``, `plain`, `a\nb`, `\"q\"`, `\\`, `\/`, `\u00e9t\u00E9`, `\ud83d\ude00!`, `\ud83d`, `\ud83dx`,
		`\ud83d\u0041`, `\u12`, `tail\`, `ü\tü`, `\x`, "\xff\\n", `\b\f\r\t`,
	}
	want := map[string]string{`a\nb`: "a\nb", `\"q\"`: `"q"`, `\\`: `\`, `\/`: `/`, `\u00e9t\u00E9`: "été",
		`\ud83d\ude00!`: "😀!", `\ud83d`: "\ufffd", `\ud83d\u0041`: "\ufffdA", `tail\`: `tail\`}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte(`\\\\u0123abcdefnrtd8"/` + "é")
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
		if got := decodeJSONString(nil, raw); !bytes.Equal(got, dec) {
			t.Fatalf("decodeJSONString(%q) = %q, want %q", c, got, dec)
		}
		if w, ok := want[c]; ok && string(dec) != w {
			t.Errorf("decoding %q gives %q, want %q", c, dec, w)
		}
		pos := make([]int, len(dec)+1)
		for i := range pos {
			pos[i] = i
		}
		rawOffsets(raw, pos)
		for i := range pos {
			if pos[i] != offs[i] {
				t.Fatalf("rawOffsets(%q)[%d] = %d, want %d", c, i, pos[i], offs[i])
			}
		}
	}
}
