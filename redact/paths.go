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
func (r *Redactor) pathSpans(text []byte, found uint64, protect func() [][2]int, spans []span, prio int) []span {
	for k, n := range r.paths {
		if r.needleBase >= 0 && found&(1<<(r.needleBase+k)) == 0 {
			continue
		}
		for i := 0; ; {
			j := bytes.Index(text[i:], n.text)
			if j < 0 {
				break
			}
			s, e := i+j, i+j+len(n.text)
			i = s + 1
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
// does match in file:///tmp/x, "/tmp/x/a", "/tmp/x." and after an escape.
func pathEdges(text []byte, s, e int, isSlug bool) bool {
	if s > 0 {
		c := text[s-1]
		switch {
		case isSlug:
			if isAlnum(c) {
				return false
			}
		case c == '/':
			if !bytes.HasSuffix(text[:s], []byte("file://")) {
				return false
			}
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
