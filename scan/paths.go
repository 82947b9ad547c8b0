package scan

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/evcap/evcap/redact"
)

// A needle is one spelling of a machine path that must not appear: the
// path itself, or the slug Claude Code names a project's directory with
// (every byte that is not a letter or digit becomes "-").
type needle struct {
	text string
	rule string
}

func needles(home, project string, temps []string) []needle {
	var out []needle
	add := func(p, rule string) {
		p = strings.TrimRight(p, "/\\")
		if len(p) < 2 {
			return
		}
		out = append(out, needle{p, rule})
		if strings.Count(p, "/")+strings.Count(p, "\\") >= 2 {
			b := []byte(p)
			for i, c := range b {
				if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
					b[i] = '-'
				}
			}
			if s := string(b); s != p {
				out = append(out, needle{s, rule})
			}
		}
	}
	add(home, redact.RulePathHome)
	add(project, redact.RulePathProject)
	for _, t := range temps {
		add(t, redact.RulePathTemp)
	}
	// Longest first: a project inside home is reported as the project.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	return out
}

// otherHome is a home directory of any user on any system. Names starting
// with "." (a bare /home/.cache) or "<" (a placeholder) are not user names.
var otherHome = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.<>-])(?:/home/|/Users/|[A-Za-z]:\\{1,2}Users\\{1,2})([A-Za-z0-9_][A-Za-z0-9_.@-]{0,63})[/\\]`)

// otherHomeMatches is otherHome.FindAllStringSubmatchIndex(text, -1),
// found by homeSearch.next instead of the expression. Without the prefilter
// (the differential tests) it is the expression itself.
func (m *matcher) otherHomeMatches(text string) [][]int {
	if m.pf == nil {
		return otherHome.FindAllStringSubmatchIndex(text, -1)
	}
	var out [][]int
	st := newHomeSearch()
	for p := 0; ; {
		mm, ok := st.next(text, p)
		if !ok {
			return out
		}
		out = append(out, mm[:])
		p = mm[1]
	}
}

// homeName and homeNameFirst are the name's classes in otherHome
// ([A-Za-z0-9_.@-] and its first byte's [A-Za-z0-9_]); homeBefore is the
// byte class a match may not start with ([A-Za-z0-9_.<>-], the class the
// expression's first byte is the complement of).
var homeName, homeNameFirst, homeBefore = func() (name, first, before [256]bool) {
	for c := range 256 {
		b := byte(c)
		alnum := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
		first[c] = alnum
		name[c] = alnum || b == '.' || b == '@' || b == '-'
		before[c] = alnum || b == '.' || b == '<' || b == '>' || b == '-'
	}
	return
}()

// homeSearch is where the search for otherHome's literals in one text
// stands: at[i] is the next occurrence of homeLits[i] at or after from[i]
// (-2: not looked for yet, -1: none left). Each literal is searched for
// once over the text, however many matches there are.
type homeSearch struct {
	at, from [3]int
}

func newHomeSearch() homeSearch {
	return homeSearch{at: [3]int{-2, -2, -2}}
}

// next is the first match of otherHome in text that starts at or
// after p (a place the expression's search may start from: 0 or the end
// of its last match), as FindAllStringSubmatchIndex gives it: the match's
// bounds and its name's. It reads the expression so. A match is a place q
// where one of the alternatives "/home/", "/Users/" and a drive letter,
// ":", one or two "\", "Users" and one or two "\" begins, preceded by the
// text's start (q == 0, the "^" alternative, which is tried first) or by a
// rune that is not one of homeBefore's bytes; then a name: a byte of
// homeNameFirst and at most 63 of homeName, then "/" or "\". Neither
// separator is a name byte, so the greedy count can only end where the
// run of name bytes ends, and the name is that whole run or nothing; after
// "Users" the greedy "\{1,2}" can take a second "\" only for a name that
// starts after it, as "\" is no name byte either. Each place q has one
// possible start (q itself, or the rune that ends at q, since q holds an
// ASCII byte), and starts grow with q (a rune ending at a later q cannot
// hold an earlier q's ASCII byte), so the leftmost match is that of the
// first q that gives one. The places are found from the literals "/home/",
// "/Users/" and "Users\\" (whose q is 3 or 4 bytes before it).
// TestOtherHomeWindowsAreTheRegexp holds it to the expression.
// Calls for one text give p in increasing order.
func (st *homeSearch) next(text string, p int) ([4]int, bool) {
	at, from := &st.at, &st.from
	for {
		k, q := -1, -1
		for i, l := range homeLits {
			if at[i] == -2 {
				from[i] = max(from[i], p)
				at[i] = -1
				if j := strings.Index(text[from[i]:], l); j >= 0 {
					at[i] = from[i] + j
				}
			}
			if at[i] < 0 {
				continue
			}
			qi := at[i]
			if i == 2 {
				qi = driveStart(text, at[i])
			}
			if k < 0 || qi < q {
				k, q = i, qi
			}
		}
		if k < 0 {
			return [4]int{}, false
		}
		// The next occurrence of this literal is looked for next time.
		u := at[k]
		from[k], at[k] = u+1, -2
		if q < 0 {
			continue
		}
		start := -1
		switch {
		case q == 0:
			if p == 0 {
				start = 0
			}
		case text[q-1] < 0x80:
			if q-1 >= p && !homeBefore[text[q-1]] {
				start = q - 1
			}
		default:
			// A rune of more than one byte, or a byte of no rune: the
			// expression's search decodes runes forward from p, and from
			// after any ASCII byte the decoding is the same.
			b := q - 1
			for b > p && text[b-1] >= 0x80 {
				b--
			}
			if b < p {
				b = p
			}
			for b < q {
				_, w := utf8.DecodeRuneInString(text[b:q])
				if b+w == q {
					start = b
					break
				}
				b += w
			}
		}
		if start < 0 {
			continue
		}
		nm := q + len(homeLits[k])
		if k == 2 {
			nm = u + len(homeLits[k])
			if nm < len(text) && text[nm] == '\\' {
				nm++
			}
		}
		if nm >= len(text) || !homeNameFirst[text[nm]] {
			continue
		}
		j := nm + 1
		for j < len(text) && j-nm-1 < 64 && homeName[text[j]] {
			j++
		}
		if j-nm-1 == 64 || j >= len(text) || text[j] != '/' && text[j] != '\\' {
			continue
		}
		return [4]int{start, j + 1, nm, j}, true
	}
}

// homeLits are the literals that place otherHome's alternatives.
var homeLits = [3]string{"/home/", "/Users/", "Users\\"}

// driveStart is where the drive alternative ("C:\\Users\\" or
// "C:\\\\Users\\") of "Users\\" at u begins, or -1 when u is not in one.
func driveStart(text string, u int) int {
	letter := func(i int) bool {
		c := text[i]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if u >= 3 && text[u-1] == '\\' && text[u-2] == ':' && letter(u-3) {
		return u - 3
	}
	if u >= 4 && text[u-1] == '\\' && text[u-2] == '\\' && text[u-3] == ':' && letter(u-4) {
		return u - 4
	}
	return -1
}

// otherHomeNames are path segments after /home/ or /Users/ that are not a
// person: shared and system directories.
var otherHomeNames = map[string]bool{"Shared": true, "Public": true, "Default": true, "All Users": true}

// needleSpec is the prefilter's requirement of a needle: its text,
// lowered, when it is ASCII (a text holding the needle holds that in its
// fold: the fold lowers ASCII letters and maps only bytes of other runes
// otherwise); a needle of other runes is searched for in every text long
// enough.
func needleSpec(text string) filterSpec {
	sp := filterSpec{name: "needle " + text, minLen: len(text)}
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return sp
		}
	}
	sp.clauses = [][]string{{strings.ToLower(text)}}
	return sp
}

func (m *matcher) pathHits(text, via string, base int, report func(hit)) {
	for i, n := range m.paths {
		if m.pf != nil && !m.pf.admits(len(m.rules)+extraEntries+i, text) {
			// The text lacks the needle's fold, or is shorter.
			continue
		}
		from := 0
		for {
			i := strings.Index(text[from:], n.text)
			if i < 0 {
				break
			}
			i += from
			end := i + len(n.text)
			from = end
			before := i == 0 || !pathByte(text[i-1])
			after := end == len(text) || !pathByte(text[end]) || text[end] == '/' || text[end] == '\\'
			if before && after {
				at := base
				if via == "" {
					at = i
				}
				report(hit{rule: n.rule, via: via, start: at, secret: n.text})
				// One report per needle and text is enough.
				break
			}
		}
	}
	if !m.anyHome || m.pf != nil && !m.pf.admits(len(m.rules)+entryOtherHome, text) {
		return
	}
	if m.pf == nil {
		for _, mm := range otherHome.FindAllStringSubmatchIndex(text, -1) {
			m.otherHomeHit(text, (*[4]int)(mm), via, base, report)
		}
		return
	}
	st := newHomeSearch()
	for p := 0; ; {
		mm, ok := st.next(text, p)
		if !ok {
			return
		}
		m.otherHomeHit(text, &mm, via, base, report)
		p = mm[1]
	}
}

// otherHomeHit reports the match mm of otherHome in text unless its name
// is a shared directory or it is one of the given paths.
func (m *matcher) otherHomeHit(text string, mm *[4]int, via string, base int, report func(hit)) {
	name := text[mm[2]:mm[3]]
	if otherHomeNames[name] || m.ownHome(text[mm[0]:]) {
		return
	}
	at := base
	if via == "" {
		at = mm[2]
	}
	report(hit{rule: RulePathOtherHome, via: via, start: at, secret: name})
}

// pathByte is a byte that continues a path component.
func pathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// ownHome reports text that starts (after at most one separator byte) with
// one of the given paths, which pathHits reports under its own rule.
func (m *matcher) ownHome(text string) bool {
	for _, n := range m.paths {
		if strings.HasPrefix(text, n.text) || len(text) > 0 && strings.HasPrefix(text[1:], n.text) {
			return true
		}
	}
	return false
}
