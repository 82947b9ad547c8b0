package redact

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveScan is what the keyword set replaces: one pass per keyword.
func naiveScan(kws []keyword, text []byte) bitset {
	var found bitset
	for _, k := range kws {
		if k.fold && containsFold(text, k.text) || !k.fold && bytes.Contains(text, k.text) {
			found.or(&k.bit)
		}
	}
	return found
}

func bits2(i, j int) bitset {
	b := bitOf(i)
	b.set(j)
	return b
}

// testKeywords are the built-in rules' keywords, path needles and a few
// that overlap each other (suffixes of other keywords, a keyword inside
// another, the same folded text exact and folded).
func testKeywords(t testing.TB) []keyword {
	r, err := New(Options{Home: "/home/Dev", Project: "/home/Dev/src/app", Temp: []string{"/tmp"},
		Config: Config{Rules: []CustomRule{{ID: "c1", Regex: `abab`, Keyword: "abab"}, {ID: "c2", Regex: `ba`, Keyword: "bab"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var kws []keyword
	for i, ru := range r.rules {
		for _, k := range ru.keywords {
			kws = append(kws, keyword{text: k, fold: ru.fold, bit: bitOf(i)})
		}
	}
	for k, n := range r.paths {
		// Needles have two bits each, as in buildKeywords.
		kws = append(kws, keyword{text: n.text, bit: bits2(pathsBit, 300+k)})
	}
	kws = append(kws, keyword{text: []byte(`\/`), bit: bitOf(slashBit)},
		keyword{text: []byte("Token"), bit: bitOf(40)}, keyword{text: []byte("en"), fold: true, bit: bitOf(41)},
		keyword{text: []byte("ken"), bit: bitOf(130)})
	return kws
}

func TestKeywordSetMatchesNaive(t *testing.T) {
	kws := testKeywords(t)
	ks := newKeywordSet(kws)
	cases := []string{
		"", "s", "sk-", "SK-", "xsk-ant-", "the quick brown fox", "PASSWORD=x", "PassWord", "passwd",
		"secret_access_key", "SECRET_ACCESS_KEY", "Secret_Access_Key", "AKIAIOSFODNN7EXAMPLE", "akia",
		"ASIA", "asia", "-----BEGIN RSA PRIVATE KEY-----", "private key", "https://u:p@h", `https:\/\/h`,
		"/home/Dev/src/app/x", "/home/dev/src/app", "-home-Dev-src-app", "/tmp/x", "/TMP", "ababab", "bab",
		"aBaB", "Token", "TOKEN", "toKen", "ken", "KEN", "eyJhbGciOi", "EYJ", "SG.x", "sg.", "hvs.", "HVS.",
		"api-key api_key APIKEY", "Authorization: Bearer", "xoxb-1", "ghp_ gho_ github_pat_ glpat-",
		"sk_live_ rk_test_", "npm_ pypi- hf_ AIza", "K\u212aelvin \u017fecret",
	}
	for _, c := range cases {
		if got, want := ks.scan([]byte(c)), naiveScan(kws, []byte(c)); got != want {
			t.Errorf("scan(%q) = %x, want %x (one pass per keyword)", c, got, want)
		}
	}
	// Random texts over the keywords' own bytes, where partial and
	// overlapping matches are frequent.
	alphabet := []byte("skSK-anteAKIpsword_cryTOKENhbgl:/\\.xy ")
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range raceScaled(20000) {
		size := 40
		if n%10 == 0 {
			size = 3 * laneMin // scanned as two lanes
		}
		b := make([]byte, rng.IntN(size))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if got, want := ks.scan(b), naiveScan(kws, b); got != want {
			t.Fatalf("scan(%q) = %x, want %x (one pass per keyword)", b, got, want)
		}
	}
}

func TestKeywordSetEmptyKeyword(t *testing.T) {
	ks := newKeywordSet([]keyword{{text: nil, bit: bitOf(0)}, {text: []byte("ab"), bit: bitOf(200)}})
	if got := ks.scan(nil); got != bitOf(0) {
		t.Errorf("scan(nil) = %x, want bit 0: an empty keyword is in every text", got)
	}
	if got := ks.scan([]byte("xaby")); got != bits2(0, 200) {
		t.Errorf("scan(xaby) = %x, want bits 0 and 200", got)
	}
}

func FuzzKeywordSet(f *testing.F) {
	kws := testKeywords(f)
	ks := newKeywordSet(kws)
	f.Add([]byte("password=sk-ant-abc /home/Dev/src/app"))
	f.Add([]byte(`{"a":"https:\/\/u:p@h","b":"SECRET_access_KEY"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := ks.scan(b), naiveScan(kws, b); got != want {
			t.Fatalf("scan(%q) = %x, want %x (one pass per keyword)", b, got, want)
		}
	})
}

// TestKeywordSetWithin checks that one scanHits pass over a text gives,
// for every piece of it, what scanning the piece alone gives: what the
// JSON walk relies on to scan a line once instead of each string again.
func TestKeywordSetWithin(t *testing.T) {
	kws := append(testKeywords(t), keyword{text: nil, bit: bitOf(7)})
	ks := newKeywordSet(kws)
	alphabet := []byte("skSK-anteAKIpsword_cryTOKENhbgl:/\\.xy \"")
	rng := rand.New(rand.NewPCG(3, 4))
	nonzero := 0
	for n := range 5000 {
		size := 80
		if n%5 == 0 {
			size = 3 * laneMin // scanned as two lanes
		}
		b := make([]byte, rng.IntN(size))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		hits := ks.scanHits(b, []kwHit{{end: -1}}, nil)[1:] // appended after what was there
		if !slices.IsSortedFunc(hits, func(x, y kwHit) int { return x.end - y.end }) {
			t.Fatalf("scanHits(%q): hits out of order", b)
		}
		for range 8 {
			lo := rng.IntN(len(b) + 1)
			hi := lo + rng.IntN(len(b)-lo+1)
			var in []kwHit
			for _, h := range hits {
				if h.end > lo && h.end <= hi {
					in = append(in, h)
				}
			}
			got, want := ks.within(b, in, lo), ks.scan(b[lo:hi])
			if got != want {
				t.Fatalf("within(%q, %d, %d) = %x, scan of the piece %q = %x", b, lo, hi, got, b[lo:hi], want)
			}
			if got != bitOf(7) {
				nonzero++
			}
		}
	}
	if nonzero < 1000 {
		t.Errorf("only %d pieces held a keyword: the comparison says little", nonzero)
	}
}

// TestKeywordSetSeam checks what holdPoint relies on to scan a stream's
// tail once for all its probes: the keywords of a+b are those of a and
// those of the rest of a+b from maxLen-1 bytes before b's start on.
func TestKeywordSetSeam(t *testing.T) {
	kws := testKeywords(t)
	ks := newKeywordSet(kws)
	alphabet := []byte("skSK-anteAKIpsword_cryTOKENhbgl:/\\.xy \"")
	rng := rand.New(rand.NewPCG(5, 6))
	differ := 0
	for n := range raceScaled(20000) {
		size := 60
		if n%5 == 0 {
			size = 3 * laneMin // scanned as two lanes
		}
		a := make([]byte, rng.IntN(size))
		b := make([]byte, rng.IntN(size))
		for _, s := range [][]byte{a, b} {
			for i := range s {
				s[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		if kw := kws[rng.IntN(len(kws))].text; n%2 == 0 && len(kw) > 1 {
			// A keyword across the seam; every fourth one as far back
			// as it can start (its last byte in b).
			j := 1 + rng.IntN(len(kw)-1)
			if n%4 == 0 {
				j = len(kw) - 1
			}
			a = append(a, kw[:j]...)
			b = append(slices.Clip(kw[j:]), b...)
		}
		ab := append(slices.Clip(a), b...)
		got := ks.scan(a)
		rest := ks.scan(ab[max(0, len(a)-(ks.maxLen-1)):])
		got.or(&rest)
		want := ks.scan(ab)
		if got != want {
			t.Fatalf("scan(%q) = %x, but scan(%q) with the seam's keywords = %x", ab, want, a, got)
		}
		if ks.scan(a) != want {
			differ++
		}
	}
	if differ < 100 {
		t.Errorf("only %d texts had keywords across the seam or in b: the comparison says little", differ)
	}
}
