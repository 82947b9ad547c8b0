package redact

import (
	"bytes"
	"slices"
	"strings"
)

// Placeholders written for machine paths.
const (
	PlaceholderHome    = "<HOME>"
	PlaceholderProject = "<PROJECT>"
	PlaceholderTemp    = "<TMP>"
)

var placeholders = [][]byte{[]byte(PlaceholderHome), []byte(PlaceholderProject), []byte(PlaceholderTemp)}

// A pathNeedle is one spelling of a machine path to replace.
type pathNeedle struct {
	text []byte
	repl string
	rule string
	slug bool
}

// buildPaths lists every spelling of the given paths, longest first, so a
// project inside the home directory becomes <PROJECT>, not <HOME>/….
func buildPaths(home, project string, temps []string) []pathNeedle {
	var out []pathNeedle
	add := func(p, repl, rule string) {
		p = strings.TrimRight(p, "/\\")
		if len(p) < 2 {
			// "/" or "" would match everywhere; a root is not a secret.
			return
		}
		out = append(out, pathNeedle{text: []byte(p), repl: repl, rule: rule})
		// A one-level path such as /root has a slug ("-root") that also
		// reads as a command-line flag, so only deeper paths get one.
		if s := slug(p); s != p && strings.Count(p, "/")+strings.Count(p, "\\") >= 2 {
			out = append(out, pathNeedle{text: []byte(s), repl: repl, rule: rule, slug: true})
		}
	}
	add(home, PlaceholderHome, RulePathHome)
	add(project, PlaceholderProject, RulePathProject)
	for _, t := range temps {
		add(t, PlaceholderTemp, RulePathTemp)
	}
	slices.SortStableFunc(out, func(a, b pathNeedle) int { return len(b.text) - len(a.text) })
	return slices.CompactFunc(out, func(a, b pathNeedle) bool { return bytes.Equal(a.text, b.text) })
}

// slug is how Claude Code names a project's directory under
// ~/.claude/projects: every byte that is not an ASCII letter or digit
// becomes "-" (/tmp/x/project → -tmp-x-project).
func slug(p string) string {
	b := []byte(p)
	for i, c := range b {
		if !isAlnum(c) {
			b[i] = '-'
		}
	}
	return string(b)
}

// pathSpans finds the needles in text; found is what the keyword set found
// in text, which says which needles to look for when they have bits.
// When m1 < m2, spans that lie wholly in text[m1:m2] may be left out (see
// findSpansCut); every other span is found as without them.
func (r *Redactor) pathSpans(text []byte, found *bitset, protect func() [][2]int, spans []span, prio, m1, m2 int) []span {
	if !r.off.home {
		spans = homeSpans(text, protect, spans, prio, m1, m2)
	}
	for k, n := range r.paths {
		if r.needleBase >= 0 && !found.has(r.needleBase+k) {
			continue
		}
		// Occurrences that start in [m1, skipEnd) end by m2: skipped.
		skipEnd := m2 - len(n.text) + 1
		for i := 0; ; {
			j := bytes.Index(text[i:], n.text)
			if j < 0 {
				break
			}
			s, e := i+j, i+j+len(n.text)
			i = s + 1
			if s >= m1 && s < skipEnd {
				i = skipEnd
				continue
			}
			if !pathEdges(text, s, e, n.slug) || overlapsAny(s, e, protect()) {
				continue
			}
			spans = append(spans, span{start: s, end: e, rule: n.rule, repl: n.repl, prio: prio})
		}
	}
	return spans
}

// pathEdges checks that a path occurrence is the whole path and not a part
// of a longer name: /tmp/x must not match in /tmp/xy or /var/tmp/x, but it
// does match in file:///tmp/x, git's a//tmp/x (the diff of a file outside
// the repository names it so), "/tmp/x/a", "/tmp/x." and after an escape.
// A separator before the path's own is an edge, as scan (the gate that
// sanitized output must pass) counts it.
func pathEdges(text []byte, s, e int, isSlug bool) bool {
	if s > 0 {
		c := text[s-1]
		switch {
		case isSlug:
			if isAlnum(c) {
				return false
			}
		case c == '/':
		case c == '.' || isIdentByte(c):
			if !(s >= 2 && text[s-2] == '\\' && isAlpha(c)) {
				return false
			}
		}
	}
	if e < len(text) {
		c := text[e]
		switch {
		case isSlug:
			return !isAlnum(c) && c != '_'
		case c == '.':
			return e+1 == len(text) || !isIdentByte(text[e+1])
		case isIdentByte(c):
			return false
		}
	}
	return true
}

// homeNeedles are the literals (ASCII case ignored) every home directory
// that homeSpans finds contains; the prefilter looks for them.
var homeNeedles = []string{"/home/", "/users/", "/root", "/-root", `:\users`, `:\\users`, "-home-", "-users-"}

// homeSpans finds home directories of any user, whoever recorded the
// capture: /home/<name>, /Users/<name> (not /Users/Shared), /root,
// <drive>:\Users\<name> (also with "/" or an escaped "\\"), and Claude
// Code's project-slug forms of them (-home-<name>, -Users-<name>,
// C--Users-<name>, and -root after a "/"). Each becomes <HOME>; the rest
// of the path is kept.
//
// When m1 < m2, the spans that start between two whitespace bytes of
// text[m1:m2] are left out and not searched for: no span holds
// whitespace, so each of them ends by m2, and the scan that resumes at
// the second whitespace byte is where the whole scan would be.
func homeSpans(text []byte, protect func() [][2]int, spans []span, prio, m1, m2 int) []span {
	add := func(s, e int) {
		if !overlapsAny(s, e, protect()) {
			spans = append(spans, span{start: s, end: e, rule: RulePathHome, repl: PlaceholderHome, prio: prio})
		}
	}
	skip := m1 < m2
	for i := 0; i < len(text); i++ {
		if skip && i >= m1 && isSpace(text[i]) {
			skip = false
			if i < m2 {
				if b := lastSpace(text[i+1 : m2]); b >= 0 {
					i += 1 + b
				}
			}
			continue
		}
		switch c := text[i]; c {
		case '/':
			if !homeLeft(text, i) {
				continue
			}
			rest := text[i+1:]
			switch {
			case hasPrefixFold(rest, "home/"), hasPrefixFold(rest, "users/"):
				skip := 6
				if rest[0]|0x20 == 'u' {
					skip = 7
				}
				e := nameEnd(text, i+skip)
				name := text[i+skip : e]
				if len(name) == 0 || string(name) == "Shared" || !isAlnum(name[0]) && name[0] != '_' {
					continue
				}
				add(i, e)
				i = e - 1
			case bytes.HasPrefix(rest, []byte("root")):
				e := i + 5
				if e < len(text) && (isNameByte(text[e]) || text[e] == '-') {
					continue
				}
				add(i, e)
				i = e - 1
			}
		case '-':
			// Slugs: every byte that is not a letter or digit became "-".
			if i > 0 && (isAlnum(text[i-1]) || text[i-1] == '-') {
				continue
			}
			rest := text[i+1:]
			skip := 0
			switch {
			case bytes.HasPrefix(rest, []byte("home-")):
				skip = 6
			case bytes.HasPrefix(rest, []byte("Users-")):
				skip = 7
			case bytes.HasPrefix(rest, []byte("root")) && i > 0 && text[i-1] == '/':
				if e := i + 5; e == len(text) || !isAlnum(text[e]) {
					add(i, e)
					i = e - 1
				}
				continue
			default:
				continue
			}
			e := i + skip
			for e < len(text) && isAlnum(text[e]) {
				e++
			}
			if e == i+skip || string(text[i+skip:e]) == "Shared" {
				continue
			}
			// "-home-dir value" and "-home-x=y" read as command-line flags.
			if e < len(text) && (text[e] == ' ' || text[e] == '=' || text[e] == '\t') {
				continue
			}
			add(i, e)
			i = e - 1
		case ':':
			// <drive>:\Users\<name>, <drive>:/Users/<name>, and the slug
			// <drive>--Users-<name>.
			if i == 0 || !isAlpha(text[i-1]) || i >= 2 && isIdentByte(text[i-2]) {
				continue
			}
			j := i + 1
			sep := 0
			for j < len(text) && (text[j] == '\\' || text[j] == '/') && sep < 2 {
				j++
				sep++
			}
			if sep == 0 || !hasPrefixFold(text[j:], "users") {
				continue
			}
			j += 5
			k := j
			for k < len(text) && k < j+sep && (text[k] == '\\' || text[k] == '/') {
				k++
			}
			if k == j {
				continue
			}
			e := nameEnd(text, k)
			if e == k || string(text[k:e]) == "Public" {
				continue
			}
			add(i-1, e)
			i = e - 1
		}
	}
	// The Windows slug: C--Users-<name>. Its spans hold no whitespace
	// either: from past m1, the search may resume at the last whitespace
	// byte before m2.
	skip = m1 < m2
	for i := 0; ; {
		if skip && i > m1 {
			skip = false
			if i < m2 {
				if b := lastSpace(text[i:m2]); b > 0 {
					i += b
				}
			}
		}
		k := bytes.Index(text[i:], []byte("--Users-"))
		if k < 0 {
			break
		}
		s := i + k - 1
		i += k + 8
		if s < 0 || !isAlpha(text[s]) || s > 0 && isIdentByte(text[s-1]) {
			continue
		}
		e := i
		for e < len(text) && isAlnum(text[e]) {
			e++
		}
		if e > i {
			add(s, e)
		}
	}
	return spans
}

// homeLeft reports whether a home directory may start at text[i]: not in
// the middle of a word, a dotted name or a URL path ("api/Users/7").
func homeLeft(text []byte, i int) bool {
	if i == 0 {
		return true
	}
	c := text[i-1]
	if i >= 2 && text[i-2] == '\\' && isAlpha(c) {
		return true // after an escape such as \n in text that was not decoded
	}
	return !isAlnum(c) && c != '.' && c != '_' && c != '-' && c != '%'
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// lastSpace is the index of the last whitespace byte of b, or -1.
func lastSpace(b []byte) int {
	return bytes.LastIndexAny(b, " \n\t\r")
}

func isNameByte(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' }

// nameEnd returns the end of the user name starting at i. A trailing "."
// is punctuation, not part of the name.
func nameEnd(text []byte, i int) int {
	e := i
	for e < len(text) && isNameByte(text[e]) {
		e++
	}
	for e > i && text[e-1] == '.' {
		e--
	}
	return e
}

func hasPrefixFold(b []byte, p string) bool {
	return len(b) >= len(p) && bytes.EqualFold(b[:len(p)], []byte(p))
}
