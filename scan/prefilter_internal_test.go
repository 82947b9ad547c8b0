package scan

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// TestPrefilterClauses logs what the prefilter requires of each rule and
// lists the rules no literal gates (none today).
func TestPrefilterClauses(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	specs, err := s.specs()
	if err != nil {
		t.Fatal(err)
	}
	for i, sp := range specs {
		var cs []string
		for _, c := range sp.clauses {
			cs = append(cs, fmt.Sprintf("%q", c))
		}
		run := ""
		if sp.run.k > 0 {
			run = fmt.Sprintf(" AND a run of %d of %d byte values", sp.run.k, sp.run.width())
		}
		t.Logf("%2d %-23s min %3d  %s%s", i, sp.name, sp.minLen, strings.Join(cs, " AND "), run)
	}
	t.Logf("always run (no literal): %v", s.pf.alwaysRun())
	if len(specs) != len(s.base)+extraEntries {
		t.Fatalf("%d specs for %d rules", len(specs), len(s.base))
	}
}

// gatedExpressions are the expressions the prefilter derives literals
// from: every built-in rule, the two credential expressions and the
// other-home expression.
func gatedExpressions(s *Scanner) []*regexp.Regexp {
	var res []*regexp.Regexp
	for _, r := range s.base {
		res = append(res, r.re)
	}
	return append(res, assignRe, flagRe, otherHome)
}

// admitted runs the prefilter on text and reports entry e.
func admitted(p *prefilter, e int, text string) bool {
	p.search(text)
	return p.admits(e, text)
}

// TestPrefilterAdmitsGeneratedMatches: random strings generated from each
// expression's own syntax tree, in random context, are admitted by what
// the prefilter derives from that expression whenever the expression
// matches them (and it must match most of them, or the generator tested
// nothing). The scanner's entries are these same derivations (specs).
func TestPrefilterAdmitsGeneratedMatches(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 1500
	if testing.Short() || raceOn {
		n = 300
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i, re := range gatedExpressions(s) {
		spec, err := specOf(re.String(), re)
		if err != nil {
			t.Fatal(err)
		}
		p := newPrefilter([]filterSpec{spec}).instance()
		// The same with the smallest chunks, so that texts longer than
		// twice the overlap are searched in pieces.
		small := newPrefilter([]filterSpec{spec})
		small.chunk = 1
		sp := small.instance()
		matched := 0
		for range n {
			text := randomContext(r, 12) + matchOf(r, re) + randomContext(r, 12)
			if r.IntN(2) == 0 {
				text = randomContext(r, 60) + text + randomContext(r, 60)
			}
			if !re.MatchString(text) {
				continue
			}
			matched++
			if !admitted(p, 0, text) {
				t.Fatalf("expression %d (%s) matches %q but the prefilter skips it", i, re, text)
			}
			if !admitted(sp, 0, text) {
				t.Fatalf("expression %d (%s) matches %q but the prefilter in chunks of %d skips it", i, re, text, 2*(3*sp.maxLit+4))
			}
		}
		if matched < n/2 {
			t.Errorf("expression %d (%s): only %d of %d generated strings matched: the generator does not exercise it", i, re, matched, n)
		}
	}
}

// TestPrefilterAdmitsCredentialNames: every name credentialName accepts
// holds a credential keyword, for names built from its own tables in
// random case, split and glued in every way it splits words.
func TestPrefilterAdmitsCredentialNames(t *testing.T) {
	var words []string
	for w := range credentialWords {
		words = append(words, w)
	}
	words = append(words, credentialParts...)
	words = append(words, "key", "pwd", "pass", "db", "my", "max", "tokens", "public", "cache", "id", "x")
	seps := []string{"", "_", "-", ".", ""}
	kws := credentialKeywords()
	r := rand.New(rand.NewPCG(3, 4))
	accepted := 0
	for range 20000 {
		var b strings.Builder
		for j := range 1 + r.IntN(3) {
			if j > 0 {
				b.WriteString(seps[r.IntN(len(seps))])
			}
			w := []rune(words[r.IntN(len(words))])
			for k := range w {
				if r.IntN(3) == 0 {
					w[k] = unicode.ToUpper(w[k])
				}
			}
			b.WriteString(string(w))
		}
		name := b.String()
		if !credentialName(name) {
			continue
		}
		accepted++
		low := strings.ToLower(name)
		found := false
		for _, k := range kws {
			if strings.Contains(low, k) {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("credentialName accepts %q, which holds none of %q", name, kws)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d names accepted: the test exercised little", accepted)
	}
	// Every word of the tables holds a keyword on its own.
	for _, w := range words[:len(credentialWords)+len(credentialParts)] {
		ok := false
		for _, k := range kws {
			ok = ok || strings.Contains(w, k)
		}
		if !ok {
			t.Errorf("table word %q holds no keyword", w)
		}
	}
}

// TestPrefilterAdmitsCredentialAssignments: text the credential check
// finds an assignment in is admitted for it.
func TestPrefilterAdmitsCredentialAssignments(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.matcher("")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"PGPASSWORD", "db_pass", "clientSecret", "API-KEY", "x.auth.token", "MYSQLPWD", "session_cookie", "Private"}
	forms := []string{"%s=%s", "export %s=%s", "%s: %s", `"%s": "%s"`, "--%s %s", "--%s=%s", "%s\t=\t'%s'"}
	r := rand.New(rand.NewPCG(5, 6))
	found := 0
	for range 5000 {
		name := names[r.IntN(len(names))]
		val := matchOf(r, regexp.MustCompile(`[A-Za-z0-9+/]{4}[0-9][A-Za-z0-9_.+/]{6,20}`))
		text := randomContext(r, 10) + fmt.Sprintf(forms[r.IntN(len(forms))], name, val) + randomContext(r, 10)
		if len(credentialAssignments(text)) == 0 {
			continue
		}
		found++
		if !admitted(m.pf, len(s.base)+entryCredential, text) {
			t.Fatalf("credential assignment in %q skipped by the prefilter", text)
		}
	}
	if found < 1000 {
		t.Fatalf("only %d texts held an assignment", found)
	}
}

// TestFoldKeepsLiterals: a text holding a rune holds its folded spelling
// once folded, for every rune the fold claims to map to one spelling, and
// the fold maps rune by rune.
func TestFoldKeepsLiterals(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		if got, want := string(foldText(nil, string(r))), string(foldRune(r)); got != want {
			t.Fatalf("foldText(%q) = %q, foldRune = %q", r, got, want)
		}
		if s, ok := literalRune(r, true); ok {
			for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
				if string(foldText(nil, string(o))) != s {
					t.Fatalf("(?i)%q: the text may hold %q, which folds to %q, not %q", r, o, foldText(nil, string(o)), s)
				}
			}
		}
	}
	// Invalid bytes stay as they are, and do not join their neighbours.
	if got := string(foldText(nil, "\xe2\x84A\xc5")); got != "\xe2\x84a\xc5" {
		t.Fatalf("fold of broken sequences: %q", got)
	}
}

// TestLiteralSearchFindsEveryLiteral checks the prefilter's search (its
// automaton, the fold in its classes, the folded path for the Kelvin sign
// and the long s, chunks) against strings.Contains of the folded text, on
// random literal sets and texts over a small alphabet (many overlaps,
// shared prefixes and suffixes), and the automaton against the
// Aho–Corasick library it replaced.
func TestLiteralSearchFindsEveryLiteral(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	const alpha = "abcka-_.s"
	word := func(n int, text bool) string {
		var b strings.Builder
		for range n {
			switch c := alpha[r.IntN(len(alpha))]; {
			case text && c == 'k' && r.IntN(3) == 0:
				b.WriteString("\u212A")
			case text && c == 's' && r.IntN(3) == 0:
				b.WriteString("\u017F")
			case text && c >= 'a' && c <= 'z' && r.IntN(3) == 0:
				b.WriteByte(c - 'a' + 'A')
			default:
				b.WriteByte(c)
			}
		}
		return b.String()
	}
	for i := range 3000 {
		set := map[string]bool{}
		for range 1 + r.IntN(12) {
			set[word(1+r.IntN(5), false)] = true
		}
		var lits []string
		var specs []filterSpec
		for l := range set {
			lits = append(lits, l)
			specs = append(specs, filterSpec{name: l, clauses: [][]string{{l}}})
		}
		p := newPrefilter(specs)
		if i%2 == 0 {
			p.chunk = 1 // the folded path in chunks as small as it goes
		}
		q := p.instance()
		trie := ahocorasick.NewTrieBuilder().AddStrings(lits).Build()
		text := word(r.IntN(60), true)
		folded := string(foldText(nil, text))
		q.search(text)
		viaTrie := map[int64]bool{}
		trie.Walk([]byte(folded), func(_, _, p int64) bool { viaTrie[p] = true; return true })
		for j, l := range lits {
			want := strings.Contains(folded, l)
			if got := q.admits(j, text); got != want {
				t.Fatalf("literals %q, text %q: %q admitted %v, contained in the fold %v", lits, text, l, got, want)
			}
			if viaTrie[int64(j)] != want {
				t.Fatalf("literals %q, text %q: the library says %q %v", lits, text, l, viaTrie[int64(j)])
			}
		}
	}
}

// TestNextB64RunIsTheRegexp: the hand-written candidate finder gives the
// regexp's matches.
func TestNextB64RunIsTheRegexp(t *testing.T) {
	b64Run := regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}={0,2}`)
	r := rand.New(rand.NewPCG(10, 11))
	const alpha = "aZ09+/_-====. é\xff"
	for range 20000 {
		b := make([]byte, r.IntN(80))
		for i := range b {
			if r.IntN(3) == 0 {
				b[i] = alpha[r.IntN(len(alpha))]
			} else {
				b[i] = "abcXYZ123"[r.IntN(9)]
			}
		}
		text := string(b)
		want := b64Run.FindAllStringIndex(text, -1)
		var got [][]int
		for from := 0; ; {
			c0, c1 := nextB64Run(text, from)
			if c0 < 0 {
				break
			}
			got = append(got, []int{c0, c1})
			from = c1
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: nextB64Run %v, regexp %v", text, got, want)
		}
	}
}

// holdsByCount is byteRun.holds as it was: a count of the class's bytes
// in a row, byte by byte.
func holdsByCount(b *byteRun, s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		if b.in[s[i]] {
			n++
			if n >= b.k {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

// TestRunJumpIsTheCount: the jumping byteRun.holds answers as counting
// the class's bytes in a row does, for runs of every length the rules
// have and random texts around them.
func TestRunJumpIsTheCount(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	var b byteRun
	for c := range 256 {
		b.in[c] = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	yes := 0
	for range 40000 {
		b.k = 1 + r.IntN(40)
		s := make([]byte, r.IntN(120))
		for i := range s {
			if r.IntN(1+r.IntN(30)) == 0 {
				s[i] = " -.\xffA"[r.IntN(5)]
			} else {
				s[i] = "abz09_"[r.IntN(6)]
			}
		}
		want := holdsByCount(&b, string(s))
		if got := b.holds(string(s)); got != want {
			t.Fatalf("k=%d %q: holds %v, counting %v", b.k, s, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 4000 || yes > 36000 {
		t.Fatalf("%d of 40000 texts hold a run: the test exercised little", yes)
	}
}

// TestDecodeShortcutsAgree: hasEscape and hasPercentEscape say exactly
// when unescape and percentDecode change their text.
func TestDecodeShortcutsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 15))
	const alpha = `\\%ux0aF9g"/'ntr `
	for range 50000 {
		b := make([]byte, r.IntN(14))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		s := string(b)
		if _, ok := unescapeAll(s); ok != hasEscape(s) {
			t.Fatalf("%q: unescape changes it: %v, hasEscape: %v", s, ok, hasEscape(s))
		}
		if _, ok := percentDecodeAll(s); ok != hasPercentEscape(s) {
			t.Fatalf("%q: percentDecode changes it: %v, hasPercentEscape: %v", s, ok, hasPercentEscape(s))
		}
	}
}

// TestOtherHomeWindowsAreTheRegexp: the windowed search gives the
// expression's own matches, on random text dense with the anchors, names
// of every length around the 64-byte limit, and runes of every width.
func TestOtherHomeWindowsAreTheRegexp(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.matcher("")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(16, 17))
	pieces := []string{" /home/ann/", "x/home/bob.x@y/", " C:\\Users\\ann\\", "\t/Users/Shared/", "/home/", "/Users/", "Users\\", "C:\\", "c:\\\\", "\\", "/", " ", "a", "ann", "<x>", ".", "-", "é", "€", "\U0001F600", "\xff",
		"\xe2\x82", "\xc3\xa9\xa9", "\xf0\x9f", "\xa9", ":", "C", "Users", "@", "_", "\\\\", "/home//", "C:\\\\Users\\\\", "x:\\\\\\Users\\",
		strings.Repeat("n", 62), strings.Repeat("n", 63), strings.Repeat("n", 64), strings.Repeat("x", 120)}
	found := 0
	n := 30000
	if raceOn {
		n = 8000 // the race detector makes each case several times slower
	}
	for range n {
		var b strings.Builder
		for range r.IntN(14) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		want := otherHome.FindAllStringSubmatchIndex(text, -1)
		got := m.otherHomeMatches(text)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: windows %v, expression %v", text, got, want)
		}
		found += len(want)
	}
	if found < n/3 {
		t.Fatalf("only %d matches in all: the test exercised little", found)
	}
}

// TestDiscordWindowsAreTheRegexp: the windowed search gives the
// expression's own matches, on random text dense with tokens, their
// parts, dots and runs of key characters of every length around the
// limits.
func TestDiscordWindowsAreTheRegexp(t *testing.T) {
	re := regexp.MustCompile(discordExpr)
	r := rand.New(rand.NewPCG(18, 19))
	key := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "aZ09_-xM"[r.IntN(8)]
		}
		return string(b)
	}
	alnum := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "aZ09MN"[r.IntN(6)]
		}
		return string(b)
	}
	n := 30000
	if raceOn {
		n = 6000
	}
	found := 0
	for range n {
		var b strings.Builder
		for range r.IntN(8) {
			switch r.IntN(8) {
			case 0:
				b.WriteString("M" + alnum(22+r.IntN(5)) + "." + key(5+r.IntN(3)) + "." + key(25+r.IntN(16)))
			case 1:
				b.WriteString(key(r.IntN(45)))
			case 2:
				b.WriteString(alnum(r.IntN(30)))
			case 3:
				b.WriteString(".")
			case 4:
				b.WriteString([]string{" ", "é", "\xff", "N", "M", "..", "\n"}[r.IntN(7)])
			default:
				b.WriteString("N" + alnum(23+r.IntN(3)) + "." + key(6) + ".")
			}
		}
		text := b.String()
		want := re.FindAllStringSubmatchIndex(text, -1)
		got := discordMatches(re, text)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: windows %v, expression %v", text, got, want)
		}
		found += len(want)
	}
	if found < n/6 {
		t.Fatalf("only %d matches in all: the test exercised little", found)
	}
}
