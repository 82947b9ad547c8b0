package redact

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	gitleaks "github.com/zricethezav/gitleaks/v8/config"
)

// The upstream rule set.
//
// gitleaks (github.com/zricethezav/gitleaks, MIT licence) maintains a
// default set of a few hundred secret rules, embedded in its Go module as
// config/gitleaks.toml. The module is pinned in go.mod; its rules are read
// from that file and run by this package's engine (its keyword prefilter,
// its decoded views, its replacement), so a gitleaks release changes what
// is found but not how fast. Nothing of gitleaks' scanner runs.
//
// What is taken from each rule: the regexp (Go RE2 syntax, as gitleaks
// uses), its keywords (matched ignoring ASCII case, as gitleaks does), the
// secret group (secretGroup, else the first group that matched, else the
// whole match), the entropy threshold on the secret, and the allowlists
// that look at text (regexes against the secret, the match or the line,
// and stopwords; AND conditions included). Rules and allowlists that
// depend on a file path are left out: a capture has no path.

// UpstreamSource names the upstream rule set and its version.
const UpstreamSource = "gitleaks v8.30.1 config/gitleaks.toml"

type upstreamFile struct {
	Allowlist  upstreamAllow `toml:"allowlist"`
	Allowlists []upstreamAllow
	Rules      []struct {
		ID          string   `toml:"id"`
		Description string   `toml:"description"`
		Regex       string   `toml:"regex"`
		Path        string   `toml:"path"`
		Entropy     float64  `toml:"entropy"`
		Keywords    []string `toml:"keywords"`
		SecretGroup int      `toml:"secretGroup"`
		Allowlists  []upstreamAllow
	} `toml:"rules"`
}

type upstreamAllow struct {
	Condition   string   `toml:"condition"`
	RegexTarget string   `toml:"regexTarget"`
	Regexes     []string `toml:"regexes"`
	Stopwords   []string `toml:"stopwords"`
	Paths       []string `toml:"paths"`
	Commits     []string `toml:"commits"`
}

// allowTest vetoes a match: secret, whole match, line.
type allowTest func(secret, match, line []byte) bool

func (a upstreamAllow) compile() (allowTest, bool) {
	if len(a.Paths) > 0 && strings.EqualFold(a.Condition, "AND") || len(a.Commits) > 0 {
		return nil, false // needs a file path or a commit: never true here
	}
	var res []*regexp.Regexp
	for _, s := range a.Regexes {
		re, err := regexp.Compile(s)
		if err != nil {
			continue
		}
		res = append(res, re)
	}
	if len(res) == 0 && len(a.Stopwords) == 0 {
		return nil, false
	}
	target := a.RegexTarget
	stop := make([]string, len(a.Stopwords))
	for i, w := range a.Stopwords {
		stop[i] = strings.ToLower(w)
	}
	and := strings.EqualFold(a.Condition, "AND")
	return func(secret, match, line []byte) bool {
		t := secret
		switch target {
		case "match":
			t = match
		case "line":
			t = line
		}
		reHit := len(res) == 0
		for _, re := range res {
			if re.Match(t) {
				reHit = true
				break
			}
		}
		stopHit := len(stop) == 0
		if len(stop) > 0 {
			ls := strings.ToLower(string(secret))
			for _, w := range stop {
				if strings.Contains(ls, w) {
					stopHit = true
					break
				}
			}
		}
		if and {
			return reHit && stopHit
		}
		return len(res) > 0 && reHit || len(stop) > 0 && stopHit
	}, true
}

// upstreamRules parses the pinned gitleaks rule set once.
var upstreamRules = sync.OnceValues(buildUpstream)

// buildUpstream reads the embedded gitleaks config and prepares its rules.
func buildUpstream() ([]*rule, error) {
	var f upstreamFile
	if _, err := toml.Decode(gitleaks.DefaultConfig, &f); err != nil {
		return nil, fmt.Errorf("redact: upstream rules (%s): %w", UpstreamSource, err)
	}
	var global []allowTest
	for _, a := range append([]upstreamAllow{f.Allowlist}, f.Allowlists...) {
		if t, ok := a.compile(); ok {
			global = append(global, t)
		}
	}
	var out []*rule
	for _, ur := range f.Rules {
		if ur.Regex == "" || ur.Path != "" || len(ur.Keywords) == 0 {
			continue // a path rule, or one no prefilter could gate
		}
		parsed, err := syntax.Parse(ur.Regex, syntax.Perl)
		if err != nil {
			continue // regexp.Compile refuses it too
		}
		allows := append([]allowTest(nil), global...)
		for _, a := range ur.Allowlists {
			if t, ok := a.compile(); ok {
				allows = append(allows, t)
			}
		}
		if ur.ID == "generic-api-key" {
			allows = append(allows, notGenericSecret)
		}
		ru := &rule{id: ur.ID, fold: true, upstream: true, entropy: ur.Entropy, allows: allows,
			description: ur.Description, rawRegex: ur.Regex}
		for _, k := range ur.Keywords {
			ru.keywords = append(ru.keywords, []byte(strings.ToLower(k)))
		}
		rest := ru.anchorAt(parsed)
		anchored := rest != nil
		simple := parsed.Simplify()
		ru.required = requiredLiterals(simple)
		windowed := false
		if w, ok := maxWidth(simple); ok && w <= maxWindowed {
			ru.maxLen = w
			windowed = true
		}
		switch {
		case ur.SecretGroup > 0:
			ru.group = ur.SecretGroup
		case parsed.MaxCap() > 0:
			ru.group = -1 // the first group that matched
		}
		// What only matching needs is built the first time the rule's
		// literals occur in a text (compile): most of the 200-odd rules
		// never meet their keywords in a run, and building them all cost
		// every redacting command about 0.2 s of CPU at start.
		//
		// It keeps no parse tree: the trees of every rule (about 50
		// thousand objects) stayed live for the whole run, and the
		// collector traced them on every cycle. The regexp is parsed
		// again instead, which gives the same trees.
		ru.compile = func() {
			ru.re = regexp.MustCompile(ur.Regex) // parsed above: it compiles
			parsed, _ := syntax.Parse(ur.Regex, syntax.Perl)
			var rest *syntax.Regexp
			if anchored {
				rest, _, _, _ = anchorRest(parsed)
			}
			simple := parsed.Simplify()
			if rest != nil {
				anchored, err := regexp.Compile(`^(?:` + rest.String() + `)`)
				if err == nil {
					ru.anchored = anchored
					ru.anchorLive = liveAnchors(rest, ru.anchorLits)
				} else {
					ru.anchorLits = nil // match unanchored; TestUpstreamRulesCompile keeps this unused
				}
			}
			if windowed {
				if prog, err := syntax.Compile(simple); err == nil {
					// Go's regexp backtracks (fast) on inputs up to this
					// length and runs its NFA (slow) on longer ones.
					ru.chunk = 256 * 1024 / max(len(prog.Inst), 1)
				}
			}
		}
		out = append(out, ru)
	}
	return out, nil
}

// upstreamLeftOut are upstream rules this package does not run, and why.
// Every other upstream text rule left the real corpus and the near-miss
// set unchanged (TestCorpusNegative, TestNearMissesUntouched).
var upstreamLeftOut = map[string]string{
	// Its regexp starts with an unbounded lazy name class and an
	// alternation of common words (key, token, auth, api, …), so Go's
	// regexp runs it as an NFA over every string that holds one of them:
	// about 190 µs for a 300-byte string, 15 times all other rules
	// together. credential-assignment finds the same NAME=value forms in
	// code (TestUpstreamRecall counts its sample as found by it).
	"generic-api-key": "too slow for record's live path; credential-assignment covers it",
	// Its body class is bech32's alphabet only; evcap's own rule of the
	// same id takes any upper-case letter or digit after the prefix.
	RuleAgeKey: "replaced by evcap's own age-secret-key rule (wider body class)",
}

// notGenericSecret is this package's own allowlist for the upstream
// generic rule, from its negative set: git object ids and sha256 digests
// (40 or 64 hex digits) and UUIDs used as ids are not credentials, whatever
// name they are assigned to.
func notGenericSecret(secret, _, _ []byte) bool {
	return uuidRe.Match(secret) || hexRe.Match(secret) && (len(secret) == 40 || len(secret) == 64)
}

// shannon is the Shannon entropy of b in bits per byte.
func shannon(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	var n [256]int
	for _, c := range b {
		n[c]++
	}
	var h float64
	l := float64(len(b))
	for _, k := range n {
		if k > 0 {
			p := float64(k) / l
			h -= p * math.Log2(p)
		}
	}
	return h
}

// upstreamSecret returns the secret's bounds in a match of an upstream
// rule and whether the rule's entropy and allowlists let it stand.
func (ru *rule) upstreamSecret(text []byte, m []int) (int, int, bool) {
	s, e := m[0], m[1]
	switch {
	case ru.group > 0:
		s, e = m[2*ru.group], m[2*ru.group+1]
	case ru.group < 0:
		for g := 1; 2*g+1 < len(m); g++ {
			if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
				s, e = m[2*g], m[2*g+1]
				break
			}
		}
	}
	if s < 0 || s >= e {
		return 0, 0, false
	}
	secret := text[s:e]
	if ru.entropy > 0 && shannon(secret) < ru.entropy {
		return 0, 0, false
	}
	if len(ru.allows) > 0 {
		ls := lineAround(text, m[0], m[1])
		for _, a := range ru.allows {
			if a(secret, text[m[0]:m[1]], ls) {
				return 0, 0, false
			}
		}
	}
	return s, e, true
}

// lineAround is the line of text that holds [s, e).
func lineAround(text []byte, s, e int) []byte {
	for s > 0 && text[s-1] != '\n' {
		s--
	}
	for e < len(text) && text[e] != '\n' {
		e++
	}
	return text[s:e]
}

// maxWindowed is the longest match for which a rule runs on windows
// around its keywords rather than on the whole text.
const maxWindowed = 1024

// maxWidth is the most bytes a match of re can span, if bounded.
func maxWidth(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += max(utf8.RuneLen(r), 1)
			if re.Flags&syntax.FoldCase != 0 {
				n += 2 // a folded rune (K, ſ) may be longer
			}
		}
		return n, true
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0, true
		}
		return max(utf8.RuneLen(re.Rune[len(re.Rune)-1]), 1), true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax, true
	case syntax.OpCapture:
		return maxWidth(re.Sub[0])
	case syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return 0, false
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		w, ok := maxWidth(re.Sub[0])
		return w * re.Max, ok
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			w, ok := maxWidth(sub)
			if !ok {
				return 0, false
			}
			n += w
		}
		return n, true
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			w, ok := maxWidth(sub)
			if !ok {
				return 0, false
			}
			n = max(n, w)
		}
		return n, true
	}
	return 0, true // empty-width assertions, empty match
}

// windowedMatchesIn runs a bounded upstream rule on windows around its
// keywords: every match contains a keyword and spans at most maxLen bytes,
// so it lies within maxLen bytes of one. On short inputs Go's regexp uses
// its backtracker instead of the much slower NFA, and long tool outputs
// cost per keyword, not per byte. Window edges move off word characters so
// that \b and the like see what they would in the whole text. lits finds
// the keywords (nil: a search of text).
func (ru *rule) windowedMatchesIn(text []byte, lits *litFinder) [][]int {
	var occ []int
	anchors := ru.keywords
	if len(ru.required) > 0 {
		anchors = ru.required
	}
	for _, k := range anchors {
		occ = lits.appendAll(occ, text, k)
	}
	if len(occ) == 0 {
		return nil
	}
	slices.Sort(occ)
	var out [][]int
	lo, hi := -1, -1
	flush := func() {
		for lo > 0 && lo > hi-4*maxWindowed && isIdentByte(text[lo-1]) {
			lo--
		}
		for hi < len(text) && isIdentByte(text[hi]) {
			hi++
		}
		// Long windows go in chunks that overlap by maxLen, so every match
		// lies wholly in one; a match two chunks find is kept once.
		step := max(ru.chunk-ru.maxLen, ru.maxLen, 256)
		lastEnd := -1
		for c := lo; c < hi; c += step {
			ce := min(hi, c+step+ru.maxLen)
			for _, m := range ru.re.FindAllSubmatchIndex(text[c:ce], -1) {
				if m[1]+c <= lastEnd || ce < hi && m[1]+c == ce {
					continue // already found, or cut by the chunk's end
				}
				for k := range m {
					if m[k] >= 0 {
						m[k] += c
					}
				}
				lastEnd = m[1]
				out = append(out, m)
			}
			if ce == hi {
				break
			}
		}
	}
	for _, p := range occ {
		a, b := max(0, p-ru.maxLen), min(len(text), p+2*ru.maxLen)
		if lo >= 0 && a <= hi {
			hi = max(hi, b)
			continue
		}
		if lo >= 0 {
			flush()
		}
		lo, hi = a, b
	}
	flush()
	return out
}

// indexFold is bytes.Index ignoring ASCII case; k is lower case. It jumps
// between occurrences, in either case, of the byte of k that is rarest in
// text (a "-" or "_" before any letter, "z" before "e") with IndexByte,
// and compares the whole of k at each: searching for a common first byte
// ("s" of "sk-") stopped at nearly every word of prose.
func indexFold(s, k []byte) int {
	if len(k) == 0 {
		return 0
	}
	f := newFoldFinder(s, k)
	return f.next()
}

// foldFinder walks the occurrences of k in s (ASCII case ignored), left
// to right, overlapping ones included, keeping its place for each case of
// k's pivot byte between calls, so that finding them all searches s for
// each case once.
type foldFinder struct {
	s, k      []byte
	p         int  // k's pivot byte's index (see pivot)
	lo, up    byte // its two cases (equal when not a letter)
	last      int  // candidates start before last
	nextLo    int  // next candidate with lo at its pivot; last when none
	nextUp    int  // the same for up
	started   bool // the first candidates are found
	exhausted bool
}

func newFoldFinder(s, k []byte) foldFinder {
	f := foldFinder{s: s, k: k, last: len(s) - len(k) + 1}
	if f.last <= 0 {
		f.exhausted = true
		return f
	}
	f.p = pivot(k)
	f.lo = k[f.p]
	f.up = f.lo
	if f.lo >= 'a' && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
	}
	return f
}

// candidate is the next candidate from from whose pivot byte is c.
func (f *foldFinder) candidate(c byte, from int) int {
	if j := bytes.IndexByte(f.s[from+f.p:f.last+f.p], c); j >= 0 {
		return from + j
	}
	return f.last
}

// next returns where the next occurrence starts, or -1.
func (f *foldFinder) next() int {
	if f.exhausted {
		return -1
	}
	if !f.started {
		f.started = true
		f.nextLo, f.nextUp = f.candidate(f.lo, 0), f.last
		if f.up != f.lo {
			f.nextUp = f.candidate(f.up, 0)
		}
	}
	for {
		i := min(f.nextLo, f.nextUp)
		if i >= f.last {
			f.exhausted = true
			return -1
		}
		if i == f.nextLo {
			f.nextLo = f.candidate(f.lo, i+1)
		}
		if i == f.nextUp && f.up != f.lo {
			f.nextUp = f.candidate(f.up, i+1)
		}
		if bytes.EqualFold(f.s[i:i+len(f.k)], f.k) {
			return i
		}
	}
}

// appendIndexFoldAll appends to occ where every occurrence of k in s
// starts (ASCII case ignored), overlapping ones included, left to right:
// what calling indexFold again from just past each occurrence finds, but
// in one pass (foldFinder). That loop searched for a case of the pivot
// byte that does not occur again from every occurrence to the end of s:
// quadratic in a long string full of one keyword (a 4 MiB line of
// "password=… token: …" took record 13 s, 2 MiB 3 s).
func appendIndexFoldAll(occ []int, s, k []byte) []int {
	if len(k) == 0 {
		for i := 0; i <= len(s); i++ {
			occ = append(occ, i)
		}
		return occ
	}
	f := newFoldFinder(s, k)
	for i := f.next(); i >= 0; i = f.next() {
		occ = append(occ, i)
	}
	return occ
}

// pivot is the index of the byte of k indexFold searches for: the one
// least frequent in the text captures hold, by byteRarity. Only ASCII
// bytes are chosen (a k that is not ASCII keeps its first byte), so that
// every match of k has that byte, in one of its two ASCII cases, there.
func pivot(k []byte) int {
	best, score := 0, -1
	for i, c := range k {
		if c >= 0x80 {
			return 0
		}
		if r := int(byteRarity[c]); r > score {
			best, score = i, r
		}
	}
	return best
}

// byteRarity ranks bytes by how rare they are in prose, code and JSON
// text: higher is rarer. Letters follow English letter frequency.
var byteRarity = func() (t [256]uint8) {
	for c := range 128 {
		t[c] = 200 // punctuation and control bytes
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 60
	}
	const common = "etaoinshrdlcumwfgypbvkjxqz" // most to least frequent
	for i, c := range common {
		t[c] = uint8(10 + 4*i)
		t[c-'a'+'A'] = uint8(10 + 4*i)
	}
	t[' '], t['\n'], t['.'], t[','], t['/'], t['"'] = 0, 5, 30, 30, 40, 40
	t['-'], t['_'] = 150, 150
	return t
}()

// requiredLiterals returns literals (lower case) one of which every match
// of re contains, or nil when it finds none. Upstream keywords are hints
// (lob-api-key's are "test_" and "live_", while its regexp needs "lob"),
// so text without a required literal is skipped too, and windows are
// centred on these literals.
func requiredLiterals(re *syntax.Regexp) [][]byte {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil
		}
		return [][]byte{[]byte(strings.ToLower(string(re.Rune)))}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best [][]byte
		bestLen := 0
		for _, sub := range re.Sub {
			set := requiredLiterals(sub)
			if len(set) == 0 {
				continue
			}
			m := len(set[0])
			for _, l := range set {
				m = min(m, len(l))
			}
			if m > bestLen {
				best, bestLen = set, m
			}
		}
		return best
	case syntax.OpAlternate:
		var out [][]byte
		for _, sub := range re.Sub {
			set := requiredLiterals(sub)
			if len(set) == 0 {
				return nil
			}
			out = append(out, set...)
		}
		return out
	}
	return nil
}

// hasRequiredIn reports whether text holds one of the rule's required
// literals (always true when it has none), finding them with lits (nil:
// a search of text).
func (ru *rule) hasRequiredIn(text []byte, lits *litFinder) bool {
	if len(ru.required) == 0 {
		return true
	}
	for _, l := range ru.required {
		if lits.contains(text, l) {
			return true
		}
	}
	return false
}

// anchorAt prepares a faster way to run the common upstream shape
// "[\w.-]{0,50}?(?:word)…(secret)…": the optional lead-in can only make a
// match start earlier, never change its groups, so the rest is compiled
// anchored (^…) and tried only where one of its leading literals occurs,
// on a window as long as the longest match. Rules of other shapes keep
// their regexp as it is.
func (ru *rule) anchorAt(parsed *syntax.Regexp) *syntax.Regexp {
	if parsed.Op == syntax.OpConcat && len(parsed.Sub) >= 2 && parsed.Sub[0].Op == syntax.OpWordBoundary {
		ru.anchorWord = true // checked by hand where the literal occurs
	}
	rest, lits, w, ok := anchorRest(parsed)
	if !ok {
		return nil
	}
	ru.anchorLits, ru.anchorLen = lits, w
	return rest
}

// anchorRest is anchorAt's analysis, which changes nothing: the regexp
// after the lead-in, its leading literals and the longest match's width,
// or ok false for a rule of another shape.
func anchorRest(parsed *syntax.Regexp) (rest *syntax.Regexp, lits [][]byte, width int, ok bool) {
	if parsed.Op != syntax.OpConcat || len(parsed.Sub) < 2 {
		return nil, nil, 0, false
	}
	lead := parsed.Sub[0]
	switch {
	case lead.Op == syntax.OpRepeat && lead.Min == 0, lead.Op == syntax.OpStar, lead.Op == syntax.OpQuest:
	case lead.Op == syntax.OpWordBoundary:
	default:
		return nil, nil, 0, false
	}
	if strings.Contains(lead.String(), "(") && !strings.Contains(lead.String(), "(?") {
		return nil, nil, 0, false // holds a capture group
	}
	rest = &syntax.Regexp{Op: syntax.OpConcat, Flags: parsed.Flags, Sub: parsed.Sub[1:]}
	lits = requiredLiterals(rest.Sub[0])
	if len(lits) == 0 {
		return nil, nil, 0, false
	}
	if countCaptures(rest) != countCaptures(parsed) {
		return nil, nil, 0, false // the anchored regexp's groups would be numbered differently
	}
	w, bounded := maxWidth(rest.Simplify())
	if !bounded || w > maxWindowed {
		w = maxWindowed
	}
	return rest, lits, w, true
}

// countCaptures is the number of capture groups in re.
func countCaptures(re *syntax.Regexp) int {
	n := 0
	if re.Op == syntax.OpCapture {
		n++
	}
	for _, sub := range re.Sub {
		n += countCaptures(sub)
	}
	return n
}

// anchoredMatches runs an anchored rule at every occurrence of its
// leading literals.
func (ru *rule) anchoredMatches(text []byte) [][]int {
	return ru.anchoredMatchesAt(text, ru.anchorLive)
}

// anchoredMatchesAt runs an anchored rule at every occurrence of lits.
func (ru *rule) anchoredMatchesAt(text []byte, lits [][]byte) [][]int {
	return ru.anchoredMatchesIn(text, lits, nil)
}

// anchoredMatchesIn is anchoredMatchesAt finding lits with f.
func (ru *rule) anchoredMatchesIn(text []byte, lits [][]byte, f *litFinder) [][]int {
	var occ []int
	for _, l := range lits {
		occ = f.appendAll(occ, text, l)
	}
	slices.Sort(occ)
	var out [][]int
	last := -1
	for _, p := range occ {
		if p < last {
			continue
		}
		if ru.anchorWord && (p > 0 && isWordByte(text[p-1]) == isWordByte(text[p]) || p == 0 && !isWordByte(text[p])) {
			continue // \b does not hold here
		}
		e := min(len(text), p+ru.anchorLen)
		for e < len(text) && e < p+2*ru.anchorLen && isIdentByte(text[e]) {
			e++
		}
		m := ru.anchored.FindSubmatchIndex(text[p:e])
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += p
			}
		}
		last = m[1]
		out = append(out, m)
	}
	return out
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// liveAnchors returns the anchor literals at which the anchored form of
// rest can match: those that, in some case, begin a text rest's program
// can read. An anchor literal chosen as the longest required one may not
// lead the match (aws-access-token's "kia" after the "A" of AKIA,
// authress's "acc" in its middle): anchoredMatches found no match at such
// a literal, however often it occurs, so it is not searched for. When in
// doubt (a literal that is not ASCII, a program that does not compile) a
// literal is kept.
func liveAnchors(rest *syntax.Regexp, lits [][]byte) [][]byte {
	prog, err := syntax.Compile(rest.Simplify())
	if err != nil {
		return lits
	}
	var live [][]byte
	for _, l := range lits {
		if !isASCII(l) || progCanRead(prog, l) {
			live = append(live, l)
		}
	}
	return live
}

// progCanRead reports whether some thread of prog, started at its
// beginning, reads all of lit (each byte in either ASCII case) or matches
// before its end. Empty-width assertions are taken to hold, so the answer
// errs towards true.
func progCanRead(prog *syntax.Prog, lit []byte) bool {
	cur := map[uint32]bool{}
	var add func(set map[uint32]bool, pc uint32) bool
	add = func(set map[uint32]bool, pc uint32) bool {
		if set[pc] {
			return false
		}
		set[pc] = true
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			return true
		case syntax.InstAlt, syntax.InstAltMatch:
			return add(set, in.Out) || add(set, in.Arg)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			return add(set, in.Out)
		}
		return false
	}
	if add(cur, uint32(prog.Start)) {
		return true
	}
	for _, c := range lit {
		lo, up := rune(foldByte(c)), rune(c)
		if c >= 'a' && c <= 'z' {
			up = rune(c - 'a' + 'A')
		}
		next := map[uint32]bool{}
		for pc := range cur {
			in := &prog.Inst[pc]
			switch in.Op {
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				if in.MatchRune(lo) || in.MatchRune(up) {
					if add(next, in.Out) {
						return true
					}
				}
			}
		}
		if len(next) == 0 {
			return false
		}
		cur = next
	}
	return true
}
