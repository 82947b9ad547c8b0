package scan

import (
	"regexp"
	"strings"
)

// The Discord bot token rule (providerKeys' last) is the one rule whose
// literals admit much text: its "." and [MN] are in most prose, and its
// run of key characters in most long texts. Run over all of a long text
// its expression cost most of the rules' time (1.4 s of 2.6 thousand
// texts, 19 MB, in the 53 MB capture). discordMatches finds the same
// matches running it only on windows around the runs a match must hold.

// discordExpr is the token's expression: [MN], 23-25 letters or digits,
// ".", 6 key characters, ".", 27-38 key characters.
const discordExpr = `[MN][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}`

// Where a match lies around its last part: the part is a maximal run of
// key characters (the "." before it is not one) of 27 or more bytes,
// starting discordLead bytes or less after the match does and ending at
// most discordTail bytes after it starts.
const (
	discordLead = 1 + 25 + 1 + 6 + 1
	discordTail = 38
	discordRun  = 27
)

// discordMatches is re.FindAllStringSubmatchIndex(text, -1) for re the
// compiled discordExpr. Every match's last part starts a maximal run R of
// at least discordRun key bytes right after a "."; the runs are taken in
// order, and for each the expression runs on the window from discordLead
// bytes before R (or where the search goes on from, p) to discordTail
// bytes after R starts. A match in that window that starts before R is
// R's own: one of an earlier run starts more than discordLead bytes
// before R (runs are at least discordRun+1 bytes apart), outside the
// window; it lies whole in the window, and, the expression having no
// anchors, it is the match the whole text gives there, the leftmost from
// p (a later run's match starts after R). A match in the window that
// starts at R or later is not R's, and may be cut by the window's end:
// it is not taken, the next run's window finds it.
func discordMatches(re *regexp.Regexp, text string) [][]int {
	var out [][]int
	p := 0
	// The runs right after a ".", found by jumping to each "." ("." is
	// no key byte, so the run after it starts there and no run holds
	// one).
	for i := 0; i < len(text); {
		d := strings.IndexByte(text[i:], '.')
		if d < 0 {
			break
		}
		q := i + d + 1
		j := q
		for j < len(text) && isKeyByte(text[j]) {
			j++
		}
		i = max(j, q)
		if j-q < discordRun || q-1-6-1-23-1 < p {
			continue
		}
		lo, hi := max(p, q-discordLead), min(len(text), q+discordTail)
		mm := re.FindStringSubmatchIndex(text[lo:hi])
		if mm == nil || lo+mm[0] >= q {
			continue
		}
		for k := range mm {
			if mm[k] >= 0 {
				mm[k] += lo
			}
		}
		out = append(out, mm)
		p = mm[1]
	}
	return out
}

// isKeyByte is [A-Za-z0-9_-].
func isKeyByte(c byte) bool { return isIdent(c) }
