package planted

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// Placements returns where the matrix puts a secret (a fresh slice each
// call).
func Placements() []string { return append([]string(nil), placements...) }

var placements = []string{
	"text", "tool-input", "tool-output", "env-dump", "json-key",
	"uescape-whole", "uescape-part", "leading-space",
	"deltas-3", "deltas-1char", "input-json-deltas", "early-flush",
	"non-json", "stderr", "argv", "base64", "percent",
}

// SmallHold is the held-lines bound (sanitize.Options.MaxHeld,
// sanitize.LineOptions.MaxHeld) to run "early-flush" cases with: the
// filler between the two parts of the secret is larger, so the block is
// flushed between them.
const SmallHold = 4096

// Case is one cell of the matrix.
type Case struct {
	Kind, Placement, Provider string
	// Secret is the planted text; Core are its random parts, which must
	// not survive.
	Secret string
	Core   []string
	// Stdout and Stderr are the agent CLI's lines, Argv its command line.
	Stdout, Stderr [][]byte
	Argv           []string
}

// Name is kind/placement/provider.
func (c Case) Name() string { return c.Kind + "/" + c.Placement + "/" + c.Provider }

// Matrix makes every case (kind × placement × provider where the provider
// has the placement: Codex streams no deltas, only Claude streams tool
// input JSON), each from its own seeded source, so a case is the same
// whatever subset is run. With short, about one cell in twelve is made:
// each kind in a third of the placements, for one provider in turn.
func Matrix(s *Shapes, short bool) []Case {
	var out []Case
	for ki, k := range Kinds() {
		for pi, pl := range placements {
			for vi, p := range providers {
				if short && ((ki+pi)%len(providers) != vi || (ki+2*pi)%3 != 0) {
					continue
				}
				r := rand.New(rand.NewPCG(uint64(ki)<<32|uint64(pi)<<8|uint64(vi), 0x5eed))
				if c, ok := Build(s, k, pl, p, r); ok {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// Build makes one case; ok is false when the provider has no such
// placement.
func Build(s *Shapes, k Kind, placement, p string, r *rand.Rand) (Case, bool) {
	secret, core := k.Gen(r)
	c := Case{Kind: k.Name, Placement: placement, Provider: p, Secret: secret, Core: core,
		Argv: []string{p, "-p", "What is in this project?"}}
	serve := false
	var body [][]byte
	cmd := func(s string) []byte { return []byte(`{"command":` + string(str(s)) + `}`) }
	switch placement {
	case "text":
		body = [][]byte{s.text(p, "Here is the value you asked for: "+secret+" (keep it safe).")}
	case "tool-input":
		body = [][]byte{s.toolInput(p, cmd("printf '%s\\n' '"+secret+"' > .env"))}
	case "tool-output":
		body = [][]byte{s.toolOutput(p, "config loaded\n"+secret+"\ndone\n")}
	case "env-dump":
		line := secret
		if !strings.Contains(strings.SplitN(secret, "\n", 2)[0], "=") {
			line = "APP_CONFIG_VALUE=" + secret
		}
		body = [][]byte{s.toolOutput(p, "SHELL=/bin/bash\nLANG=C.UTF-8\n"+line+"\nTERM=xterm-256color\nPWD=/srv/app\n")}
	case "json-key":
		if p == "codex" {
			return Case{}, false
		}
		body = [][]byte{s.toolInput(p, []byte(`{`+string(str(secret))+`:"value"}`))}
	case "uescape-whole", "uescape-part":
		line := s.text(p, "Here is the value you asked for: "+secret+" (keep it safe).")
		enc := strings.Trim(string(str(secret)), `"`)
		esc := escapeAll(secret)
		if placement == "uescape-part" {
			esc = escapeOne(secret, core[0])
		}
		body = [][]byte{[]byte(strings.Replace(string(line), enc, esc, 1))}
	case "leading-space":
		body = [][]byte{append([]byte("   "), s.text(p, "Here is the value you asked for: "+secret)...)}
	case "deltas-3", "deltas-1char", "early-flush":
		var parts []string
		fill, filler := -1, [][]byte(nil)
		switch placement {
		case "deltas-3":
			parts = cut(secret, core[0], 3)
		case "deltas-1char":
			for _, r := range secret {
				parts = append(parts, string(r))
			}
		default:
			if p == "gemini" {
				// Any Gemini line that is not an assistant delta ends the
				// message, so there is nothing to hold back behind.
				return Case{}, false
			}
			parts = cut(secret, core[0], 2)
			fill, filler = 0, s.filler(p, 8)
		}
		parts = append([]string{"Here is the value: "}, parts...)
		parts = append(parts, " (keep it safe).")
		if fill >= 0 {
			fill++
		}
		var ok bool
		body, ok = s.deltas(p, parts, fill, filler)
		if !ok {
			return Case{}, false
		}
		serve = true
	case "input-json-deltas":
		whole := string(cmd("echo '" + secret + "' >> .env"))
		var ok bool
		body, ok = s.jsonDeltas(p, cut(whole, core[0], 4))
		if !ok {
			return Case{}, false
		}
	case "non-json":
		for _, l := range strings.Split("warning: using credential "+secret, "\n") {
			body = append(body, []byte(l))
		}
		body = append([][]byte{s.text(p, "Working on it.")}, body...)
	case "stderr":
		for _, l := range strings.Split("error: request failed with credential "+secret, "\n") {
			c.Stderr = append(c.Stderr, []byte(l))
		}
		body = [][]byte{s.text(p, "The request failed.")}
	case "argv":
		c.Argv = append(c.Argv, "--api-key", secret)
		body = [][]byte{s.text(p, "Done.")}
	case "base64":
		enc := base64.StdEncoding.EncodeToString([]byte(secret))
		body = [][]byte{s.toolOutput(p, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  value: "+enc+"\n")}
	case "percent":
		var b strings.Builder
		for i := 0; i < len(secret); i++ {
			fmt.Fprintf(&b, "%%%02X", secret[i])
		}
		body = [][]byte{s.text(p, "Open https://auth.example.test/callback?state=x&value="+b.String()+" to finish.")}
	default:
		panic("planted: unknown placement " + placement)
	}
	c.Stdout = append(append(append([][]byte{}, s.head(p, serve)...), body...), s.end(p, serve)...)
	return c, true
}

// cut splits s into n parts, the cuts falling inside core (which s holds).
func cut(s, core string, n int) []string {
	at := strings.Index(s, core)
	if at < 0 {
		at = 0
		core = s
	}
	var parts []string
	prev := 0
	for i := 1; i < n; i++ {
		c := at + len(core)*i/n
		parts = append(parts, s[prev:c])
		prev = c
	}
	return append(parts, s[prev:])
}

// escapeAll writes every character of s as a JSON \u escape.
func escapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x10000 {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// escapeOne is s JSON-encoded with one character in the middle of core
// written as a \u escape.
func escapeOne(s, core string) string {
	enc := strings.Trim(string(str(s)), `"`)
	at := strings.Index(s, core)
	if at < 0 {
		return enc
	}
	mid := at + len(core)/2
	r, size := utf8.DecodeRuneInString(s[mid:])
	before := strings.Trim(string(str(s[:mid])), `"`)
	after := strings.Trim(string(str(s[mid+size:])), `"`)
	return before + fmt.Sprintf(`\u%04x`, r) + after
}
