package gen

import (
	"encoding/base64"
	"strings"
)

// Forms a planted secret takes.
const (
	// FormWhole: the secret in one piece, between spaces, in streamed or
	// whole assistant text.
	FormWhole = "whole"
	// FormEscaped: the secret in a tool output right after a newline and
	// before a tab, so the JSON line holds \n<secret>\t.
	FormEscaped = "escaped"
	// FormSplit: the secret split across 2 to 4 consecutive text deltas
	// (only for providers that stream deltas: Claude and Gemini).
	FormSplit = "split"
)

// Planted is one fake secret written into a run.
type Planted struct {
	Rule string // the redact rule id that must find it
	Form string
	// Text is what was written (with its context, such as "Authorization:
	// Bearer "); Value is the part that must not survive redaction.
	Text, Value string
	// Pieces are the deltas the text was split into (FormSplit only).
	Pieces []string
	// Turn is the turn it was planted in (0-based).
	Turn int
}

// maker builds one fake secret of a rule: the text to write and the value
// to redact. Prefixes are assembled from pieces so the source holds no
// secret-shaped literal.
type maker struct {
	rule string
	make func(g *run) (text, value string)
}

func cat(parts ...string) string { return strings.Join(parts, "") }

// mixedPick returns n characters of set with at least one digit and one
// letter, as the rules that ask for "mixed" values need.
func (g *run) mixedPick(set string, n int) string {
	s := []byte(g.pick(set, n))
	for {
		c := set[g.rng.IntN(len(set))]
		if c >= '0' && c <= '9' {
			s[0] = c
			break
		}
	}
	for {
		c := set[g.rng.IntN(len(set))]
		if c|0x20 >= 'a' && c|0x20 <= 'z' {
			s[n-1] = c
			break
		}
	}
	return string(s)
}

func same(s string) (string, string) { return s, s }

var makers = []maker{
	{"anthropic-key", func(g *run) (string, string) { return same(cat("sk", "-ant-", "api03-", g.mixedPick(alnum, 40), "AA")) }},
	{"openai-key", func(g *run) (string, string) { return same(cat("sk", "-proj-", g.mixedPick(alnum, 48))) }},
	{"github-token", func(g *run) (string, string) { return same(cat("gh", "p_", g.mixedPick(alnum, 36))) }},
	{"github-fine-grained-pat", func(g *run) (string, string) {
		return same(cat("github", "_pat_", g.mixedPick(alnum, 22), "_", g.mixedPick(alnum, 59)))
	}},
	{"gitlab-pat", func(g *run) (string, string) { return same(cat("gl", "pat-", g.mixedPick(alnum, 20))) }},
	// AWS key ids are base32: A-Z and 2-7 after the prefix.
	{"aws-access-key-id", func(g *run) (string, string) { return same(cat("AK", "IA", g.mixedPick(upper+"234567", 15), "Q")) }},
	{"google-api-key", func(g *run) (string, string) { return same(cat("AI", "za", g.mixedPick(alnum, 35))) }},
	{"slack-token", func(g *run) (string, string) {
		return same(cat("xo", "xb-", g.pick(digits, 11), "-", g.pick(digits, 12), "-", g.mixedPick(alnum, 24)))
	}},
	{"stripe-key", func(g *run) (string, string) { return same(cat("sk", "_live_", g.mixedPick(alnum, 24))) }},
	{"huggingface-token", func(g *run) (string, string) { return same(cat("hf", "_", g.mixedPick(alnum, 34))) }},
	{"npm-token", func(g *run) (string, string) { return same(cat("npm", "_", g.mixedPick(alnum, 36))) }},
	{"pypi-token", func(g *run) (string, string) {
		return same(cat("py", "pi-", "AgEIcHlwaS5vcmc", g.mixedPick(alnum, 50)))
	}},
	{"sendgrid-key", func(g *run) (string, string) {
		return same(cat("SG", ".", g.mixedPick(alnum, 22), ".", g.mixedPick(alnum, 43)))
	}},
	{"vault-token", func(g *run) (string, string) { return same(cat("hv", "s.", g.mixedPick(alnum, 28))) }},
	{"jwt", func(g *run) (string, string) {
		return same(cat("ey", "J", g.pick(alnum, 30), ".", "ey", "J", g.pick(alnum, 40), ".", g.pick(alnum, 43)))
	}},
	{"authorization-header", func(g *run) (string, string) {
		v := g.mixedPick(alnum, 32)
		return cat("Author", "ization: ", "Bearer ", v), v
	}},
	{"url-password", func(g *run) (string, string) {
		v := g.mixedPick(alnum, 18)
		return cat("postgres://app:", v, "@db.internal:5432/app"), v
	}},
	{"secret-assignment", func(g *run) (string, string) {
		v := g.mixedPick(alnum, 20)
		return cat("DB_PASS", "WORD=", v), v
	}},
	{"private-key-block", func(g *run) (string, string) {
		var body []string
		for i := 0; i < 6; i++ {
			body = append(body, g.pick(alnum+"+/", 64))
		}
		v := strings.Join(body, "\n")
		return cat("-----BEGIN RSA ", "PRIVATE KEY-----\n", v, "\n-----END RSA ", "PRIVATE KEY-----"), v
	}},
}

// Rules lists the rule ids Write plants, in the order they take turns.
func Rules() []string {
	out := make([]string, len(makers))
	for i, m := range makers {
		out[i] = m.rule
	}
	return out
}

// Negative kinds, planted in tool outputs; none is a secret.
var negatives = []func(g *run) string{
	func(g *run) string { return g.uuid() },
	func(g *run) string { return cat("commit ", g.pick(hexd, 40)) },
	func(g *run) string {
		return cat("golang.org/x/sys v0.", g.pick(digits, 2), ".0 h1:", base64.StdEncoding.EncodeToString([]byte(g.pick(alnum, 32))))
	},
	func(g *run) string {
		return cat(`"integrity": "sha512-`, base64.StdEncoding.EncodeToString([]byte(g.pick(alnum, 64))), `"`)
	},
	func(g *run) string {
		png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), g.pick(alnum, 120)...)
		return cat("![plot](data:image/png;base64,", base64.StdEncoding.EncodeToString(png), ")")
	},
	func(g *run) string { return cat("key was [REDACTED:", "openai-key] and ", "[REDACTED:github-token]") },
}

// NegativeKinds returns the names of the negative kinds in the order they
// take turns (a fresh slice each call).
func NegativeKinds() []string { return append([]string(nil), negativeKinds...) }

var negativeKinds = []string{"uuid", "git-sha", "go.sum", "npm-integrity", "base64-image", "already-redacted"}

// plant puts the next secret into t in the next form, and the next
// negative value into its tool output.
func (g *run) plant(t *turn) {
	m := makers[g.nextRule%len(makers)]
	g.nextRule++
	forms := []string{FormWhole, FormEscaped}
	if g.streams && m.rule != "private-key-block" {
		forms = append(forms, FormSplit)
	}
	form := forms[g.nextForm%len(forms)]
	if g.nextRule%len(makers) == 0 {
		g.nextForm++
	}
	text, value := m.make(g)
	var splitPieces []string
	switch form {
	case FormWhole:
		i := g.rng.IntN(len(t.text) + 1)
		t.text = insert(t.text, i, " "+text+" ")
	case FormEscaped:
		t.output += "\n" + text + "\tis what the config says\n"
	case FormSplit:
		n := 2 + g.rng.IntN(3)
		var pieces []string
		rest := text
		for k := n; k > 1; k-- {
			cut := 1 + g.rng.IntN(len(rest)-k+1)
			pieces = append(pieces, rest[:cut])
			rest = rest[cut:]
		}
		pieces = append(pieces, rest)
		splitPieces = append([]string(nil), pieces...)
		pieces[0] = " " + pieces[0]
		pieces[len(pieces)-1] += " "
		i := g.rng.IntN(len(t.text) + 1)
		t.text = insert(t.text, i, pieces...)
	}
	p := Planted{Rule: m.rule, Form: form, Text: text, Value: value, Turn: g.st.Turns}
	if form == FormSplit {
		p.Pieces = splitPieces
	}
	g.st.Planted = append(g.st.Planted, p)

	neg := negatives[g.nextNeg%len(negatives)](g)
	g.nextNeg++
	t.output += "\n" + neg + "\n"
	g.st.Negatives = append(g.st.Negatives, neg)
}

func insert(s []string, i int, v ...string) []string {
	out := make([]string, 0, len(s)+len(v))
	out = append(out, s[:i]...)
	out = append(out, v...)
	return append(out, s[i:]...)
}
