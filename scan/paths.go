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
	for _, mm := range otherHome.FindAllStringSubmatchIndex(text, -1) {
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
