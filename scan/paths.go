package scan

import (
	"regexp"
	"sort"
	"strings"

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

// otherHomeMid is otherHome for text that does not start the whole text
// (no "^": the match needs a byte before the path).
var otherHomeMid = regexp.MustCompile(`[^A-Za-z0-9_.<>-](?:/home/|/Users/|[A-Za-z]:\\{1,2}Users\\{1,2})([A-Za-z0-9_][A-Za-z0-9_.@-]{0,63})[/\\]`)

// homeAnchors are the literals one of which every match of otherHome
// holds, at most homeLead bytes after the match starts (a rune of up to
// 4 bytes, then "/home/", or "C:\\" before "Users\"); no match is
// longer than homeMax bytes (4 + 11 + 64 + 1).
var homeAnchors = []string{"/home/", "/Users/", "Users\\"}

const (
	homeLead = 16
	homeMax  = 128
)

// otherHomeMatches is otherHome.FindAllStringSubmatchIndex(text, -1)
// without running the expression over all of a long text: from each place
// p the search goes on from, the first anchor at or after p is found, and
// the expression runs on the window from homeLead bytes before it (or p)
// to homeMax bytes after. A match that starts at or after p holds an
// anchor at or after p, within homeLead bytes of its start, so none
// starts before the window; one starting at or before the anchor ends
// inside the window, and is the match the whole text gives (the
// expression looks at nothing past its match; "^" only at the text's
// start, hence otherHomeMid for windows that do not start there). When
// the window's first match starts after the anchor, or it has none, no
// match starts at or before the anchor, and the search goes on after it.
// Without the prefilter (the differential tests) it is the expression
// itself.
func (m *matcher) otherHomeMatches(text string) [][]int {
	if m.pf == nil {
		return otherHome.FindAllStringSubmatchIndex(text, -1)
	}
	var out [][]int
	next := [3]int{-2, -2, -2} // next occurrence of each anchor (-2: not looked for, -1: none)
	for p := 0; p < len(text); {
		a := -1
		for i, l := range homeAnchors {
			if next[i] != -1 && next[i] < p {
				next[i] = -1
				if j := strings.Index(text[p:], l); j >= 0 {
					next[i] = p + j
				}
			}
			if next[i] >= 0 && (a < 0 || next[i] < a) {
				a = next[i]
			}
		}
		if a < 0 {
			break
		}
		lo, hi := max(p, a-homeLead), min(len(text), a+homeMax)
		re := otherHomeMid
		if lo == 0 {
			re = otherHome
		}
		mm := re.FindStringSubmatchIndex(text[lo:hi])
		if mm == nil || lo+mm[0] > a {
			p = a + 1
			continue
		}
		for i := range mm {
			if mm[i] >= 0 {
				mm[i] += lo
			}
		}
		out = append(out, mm)
		p = mm[1]
	}
	return out
}

// otherHomeNames are path segments after /home/ or /Users/ that are not a
// person: shared and system directories.
var otherHomeNames = map[string]bool{"Shared": true, "Public": true, "Default": true, "All Users": true}

func (m *matcher) pathHits(text, via string, base int, report func(hit)) {
	for _, n := range m.paths {
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
	for _, mm := range m.otherHomeMatches(text) {
		name := text[mm[2]:mm[3]]
		if otherHomeNames[name] || m.ownHome(text[mm[0]:]) {
			continue
		}
		at := base
		if via == "" {
			at = mm[2]
		}
		report(hit{rule: RulePathOtherHome, via: via, start: at, secret: name})
	}
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
