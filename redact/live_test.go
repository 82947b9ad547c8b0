package redact

import (
	"strings"
	"testing"
)

// TestStreamReleasesAtOnce: a delta whose tail starts no secret comes out
// of Push right away; one whose tail could start a secret waits only for
// the delta that settles it.
func TestStreamReleasesAtOnce(t *testing.T) {
	g := newGen()
	key := "sk-" + "ant-api03-" + g.s(urlSafe, 93) + "AA"
	cases := []struct {
		deltas []string
		now    []int // how many chunks each Push must return
		reason string
	}{
		{[]string{"Hello ", "world, ", "this is ", "plain text."}, []int{1, 1, 1, 1}, "prose is released delta by delta"},
		{[]string{"Here: s", "k-ant-api03-" + key[13:40], key[40:], " done"}, []int{0, 0, 0, 4}, "a key prefix, then the key, is held until it ends"},
		{[]string{"password=", "hu", "nter2Zq9x", " ok"}, []int{1, 0, 0, 2}, "a value after password= is held until it ends; the name is released"},
		{[]string{"see /ho", "me/bob/x", " there"}, []int{0, 0, 3}, "a home path prefix waits"},
		{[]string{"-----BEG", "IN RSA PRIVATE KEY-----\n", "MIIEabc\n", "-----END RSA PRIVATE KEY-----", " after"}, []int{0, 0, 0, 0, 5}, "a private key block waits for its END"},
		{[]string{"the keyboard ", "is fine"}, []int{1, 1}, "a word holding a context keyword is not held"},
	}
	r := testRedactor(t)
	for _, c := range cases {
		s := r.NewStream(0)
		var all []Chunk
		for i, d := range c.deltas {
			out := s.Push(d)
			if len(out) != c.now[i] {
				t.Errorf("%s: Push(%q) released %d chunks, want %d", c.reason, d, len(out), c.now[i])
			}
			all = append(all, out...)
		}
		all = append(all, s.Flush()...)
		want := r.Chunks(c.deltas)
		if strings.Join(chunkTexts(all), "|") != strings.Join(chunkTexts(want), "|") {
			t.Errorf("%s: stream %q, Chunks %q", c.reason, chunkTexts(all), chunkTexts(want))
		}
	}
}

// TestStreamCut: a secret cut in two by an early release loses every piece
// in both parts, and the text after it streams again.
func TestStreamCut(t *testing.T) {
	g := newGen()
	key := "sk-" + "ant-api03-" + g.s(urlSafe, 93) + "AA"
	pem := "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" + g.s(b64, 70) + "\n" + g.s(b64, 70) + "\n-----END OPENSSH " + "PRIVATE KEY-----"
	cases := []struct {
		before, after []string
		secret        string
		reason        string
	}{
		{[]string{"token ", key[:5]}, []string{key[5:30], key[30:], " and more text"}, key, "cut after a key prefix"},
		{[]string{"token ", key[:25]}, []string{key[25:], " and more text"}, key, "cut inside a key that already matches"},
		{[]string{"x ", pem[:40]}, []string{pem[40:100], pem[100:], " after"}, pem, "cut inside a private key block"},
		{[]string{"password=", "hu"}, []string{"nter2Zq9xW", " ok"}, "hunter2Zq9xW", "cut inside a value"},
	}
	r := testRedactor(t)
	for _, c := range cases {
		s := r.NewStream(0)
		var out []string
		for _, d := range c.before {
			out = append(out, chunkTexts(s.Push(d))...)
		}
		out = append(out, chunkTexts(s.Cut())...)
		var rest []string
		for _, d := range c.after {
			rest = append(rest, chunkTexts(s.Push(d))...)
		}
		rest = append(rest, chunkTexts(s.Flush())...)
		all := strings.Join(append(out, rest...), "")
		for i := 0; i+6 <= len(c.secret); i++ {
			piece := c.secret[i : i+6]
			if strings.ContainsAny(piece, " \n-") {
				continue // header words and line breaks are not secret
			}
			if strings.Contains(all, piece) {
				t.Errorf("%s: output shows %q: %q", c.reason, piece, append(out, rest...))
				break
			}
		}
		if last := rest[len(rest)-1]; !strings.Contains(last, "after") && !strings.Contains(last, "ok") && !strings.Contains(last, "more text") {
			t.Errorf("%s: the text after the secret was lost: %q", c.reason, rest)
		}
		if s.Cuts() != 1 {
			t.Errorf("%s: Cuts() = %d, want 1", c.reason, s.Cuts())
		}
	}
}
