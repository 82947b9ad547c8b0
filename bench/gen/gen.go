package gen

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/evcap/evcap/envelope"
)

// Providers returns the providers Write can generate, in a fixed order (a
// fresh slice each call).
func Providers() []string { return append([]string(nil), providers...) }

var providers = []string{"claude", "codex", "opencode", "gemini"}

// Options say what to generate.
type Options struct {
	// Provider is one of Providers.
	Provider string
	// Size is the target size in bytes: turns are written until at least
	// this many bytes are out, then the run is closed (result line).
	Size int64
	// Seed makes the run; the same Options give the same bytes.
	Seed uint64
	// BigLine, when > 0, makes the tool output of the middle turn so long
	// that its line is about BigLine bytes.
	BigLine int
	// Secrets plants one fake secret (rules taking turns, forms taking
	// turns) and one negative value every SecretEvery turns; 0 plants none.
	SecretEvery int
	// ToolOutput is the typical tool output size in bytes (default 6 KiB).
	ToolOutput int
	// Home, Project and Temp are the machine paths written into tool
	// outputs and commands (defaults /home/dev, /home/dev/src/app, /tmp).
	Home, Project, Temp string
	// Text is what the thinking and answer deltas say: one of Texts.
	// Inputs that a redactor finds hard are a different shape of run, not
	// a bigger one, so the bench can be run on each.
	Text string
}

// Texts are the kinds of streamed text Write can generate:
//
//	prose     words, punctuation and a little non-ASCII (the default, "")
//	base64    a sentence, then a run of base64 several KB long, then
//	          another sentence: an encoded file or data URL the model
//	          writes out, which the redactor must hold to its end
//	keywords  prose where every few words starts a secret's shape
//	          ("token", "key=", "Bearer", "AKIA", "sk-", "-----BEGIN")
//	          without being one, so that the rules' expressions run
func Texts() []string { return []string{"prose", "base64", "keywords"} }

// Stats describe what Write wrote.
type Stats struct {
	Bytes   int64
	Lines   int64
	Longest int
	Turns   int
	// Planted lists every fake secret in the order written.
	Planted []Planted
	// Negatives lists every negative value in the order written.
	Negatives []string
}

// Lines generates one run in memory and returns its lines (without their
// newlines) and its stats: the input of benchmarks that time a normalizer
// or redactor over a run's lines, not the reading of them.
func Lines(o Options) ([][]byte, Stats, error) {
	var raw bytes.Buffer
	st, err := Write(&raw, o)
	if err != nil {
		return nil, st, err
	}
	return bytes.Split(bytes.TrimSuffix(raw.Bytes(), []byte("\n")), []byte("\n")), st, nil
}

// Write writes one generated run to w.
func Write(w io.Writer, o Options) (Stats, error) {
	if o.ToolOutput <= 0 {
		o.ToolOutput = 6 << 10
	}
	if o.Home == "" {
		o.Home = "/home/dev"
	}
	if o.Project == "" {
		o.Project = o.Home + "/src/app"
	}
	if o.Temp == "" {
		o.Temp = "/tmp"
	}
	switch o.Text {
	case "", "prose", "base64", "keywords":
	default:
		return Stats{}, fmt.Errorf("gen: unknown text %q (want one of %v)", o.Text, Texts())
	}
	g := &run{o: o, rng: rand.New(rand.NewPCG(o.Seed, 0x6576626e)), bw: bufio.NewWriterSize(w, 256<<10),
		clock: time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC)}
	var p provider
	copies := 1 // how often a tool output appears in its line
	switch o.Provider {
	case "claude":
		p, copies = &claude{g: g}, 2
	case "codex":
		p = &codex{g: g}
	case "opencode":
		p, copies = &opencode{g: g}, 2
	case "gemini":
		p = &gemini{g: g}
	default:
		return Stats{}, fmt.Errorf("gen: unknown provider %q (want one of %v)", o.Provider, providers)
	}
	p.start()
	// Where the big line goes: the turn that starts past half the size.
	bigDone := o.BigLine <= 0
	for g.st.Bytes < o.Size || g.st.Turns == 0 {
		t := g.turn()
		if !bigDone && g.st.Bytes >= o.Size/2 {
			t.output = g.toolOutput(o.BigLine / copies)
			bigDone = true
		}
		p.turn(t)
		g.st.Turns++
		if g.err != nil {
			return g.st, g.err
		}
	}
	p.end()
	if err := g.bw.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	return g.st, g.err
}

// provider writes one CLI's lines for the turns it is given.
type provider interface {
	start()
	turn(t *turn)
	end()
}

// A turn is what the agent does once: think, say something, run a command
// and read its output. Streamed text comes in deltas.
type turn struct {
	thinking []string // deltas
	text     []string // deltas
	command  string
	output   string
}

func (t *turn) thinkingText() string { return join(t.thinking) }
func (t *turn) textText() string     { return join(t.text) }

func join(parts []string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return string(b)
}

type run struct {
	o       Options
	rng     *rand.Rand
	bw      *bufio.Writer
	st      Stats
	err     error
	clock   time.Time
	buf     []byte
	streams bool // the provider streams text deltas
	// next secret rule and form to plant, taking turns.
	nextRule, nextForm, nextNeg int
}

// line writes b and a newline.
func (g *run) line(b []byte) {
	if g.err != nil {
		return
	}
	b = append(b, '\n')
	if _, err := g.bw.Write(b); err != nil {
		g.err = err
		return
	}
	g.st.Bytes += int64(len(b))
	g.st.Lines++
	if len(b)-1 > g.st.Longest {
		g.st.Longest = len(b) - 1
	}
}

// tick advances the run's clock by a few milliseconds.
func (g *run) tick() time.Time {
	g.clock = g.clock.Add(time.Duration(2+g.rng.IntN(40)) * time.Millisecond)
	return g.clock
}

func (g *run) rfc3339() string { return g.tick().Format("2006-01-02T15:04:05.000Z") }
func (g *run) millis() string  { return strconv.FormatInt(g.tick().UnixMilli(), 10) }

// str appends s as a JSON string.
func str(dst []byte, s string) []byte { return envelope.AppendJSONString(dst, s) }

const (
	lower  = "abcdefghijklmnopqrstuvwxyz"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits = "0123456789"
	hexd   = "0123456789abcdef"
	alnum  = lower + upper + digits
)

func (g *run) pick(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.rng.IntN(len(set))]
	}
	return string(b)
}

func (g *run) uuid() string {
	h := g.pick(hexd, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

var words = []string{"the", "test", "fails", "because", "handler", "returns", "an", "error", "when", "config",
	"is", "missing", "so", "I", "will", "read", "file", "and", "check", "which", "function", "calls", "it",
	"then", "run", "suite", "again", "to", "see", "whether", "fix", "works", "build", "module", "package",
	"import", "cycle", "value", "pointer", "nil", "slice", "stream", "line", "buffer", "flush", "writer",
	"café", "naïve", "日本語", "Ελληνικά", "🚀", "—", "“quoted”", "tab\there", "`code`", "**bold**"}

// prose returns n words, split into deltas of 1 to 24 bytes the way the
// APIs stream them (anywhere, also inside words, never inside a rune).
func (g *run) prose(n int) []string {
	var b []byte
	for i := 0; i < n; i++ {
		if i > 0 {
			if g.rng.IntN(12) == 0 {
				b = append(b, ".\n\n"...)
			} else {
				b = append(b, ' ')
			}
		}
		b = append(b, words[g.rng.IntN(len(words))]...)
	}
	return g.chop(string(b))
}

// streamed returns the deltas of a thinking or answer text of about n
// words, of the kind Options.Text names.
func (g *run) streamed(n int) []string {
	switch g.o.Text {
	case "base64":
		raw := make([]byte, 3*(256+g.rng.IntN(2048)))
		for i := range raw {
			raw[i] = byte(g.rng.IntN(256))
		}
		lead := g.words(n / 4)
		return g.chop(lead + ": " + base64.StdEncoding.EncodeToString(raw) + "\n\n" + g.words(n/4) + ".")
	case "keywords":
		var b []byte
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ' ')
			}
			if g.rng.IntN(3) == 0 {
				b = append(b, lookalikes[g.rng.IntN(len(lookalikes))]...)
			} else {
				b = append(b, words[g.rng.IntN(len(words))]...)
			}
		}
		return g.chop(string(b))
	}
	return g.prose(n)
}

// lookalikes begin the shape of a secret (a rule's keyword or prefix) and
// end before it is one.
var lookalikes = []string{"token", "Token:", "api_key", "key=", "SECRET", "password", "passwd:", "Bearer",
	"Authorization:", "AKIA", "ghp_", "sk-", "sk-ant-", "xoxb-", "eyJ", "-----BEGIN", "npm_", "glpat-", "hf_"}

// words returns n words joined by spaces.
func (g *run) words(n int) string {
	var b []byte
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, words[g.rng.IntN(len(words))]...)
	}
	return string(b)
}

// chop splits s into deltas of 1 to 24 bytes on rune boundaries.
func (g *run) chop(s string) []string {
	var out []string
	for len(s) > 0 {
		n := 1 + g.rng.IntN(24)
		if n >= len(s) {
			out = append(out, s)
			break
		}
		for n < len(s) && s[n]&0xC0 == 0x80 {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

var commands = []string{"go test ./...", "ls -la", "cat go.mod", "git log --oneline -n 20", "grep -rn TODO .", "npm ls", "find . -name '*.go'"}

// toolOutput returns about n bytes of command output: listings and test
// logs with tabs, machine paths, and long lines.
func (g *run) toolOutput(n int) string {
	b := make([]byte, 0, n+256)
	o := g.o
	for len(b) < n {
		switch g.rng.IntN(6) {
		case 0:
			b = fmt.Appendf(b, "-rw-r--r--\t1 dev dev\t%6d Nov 29 19:%02d\t%s/%s/%s_%d.go\n",
				g.rng.IntN(99999), g.rng.IntN(60), o.Project, words[g.rng.IntN(20)], words[g.rng.IntN(40)], g.rng.IntN(100))
		case 1:
			b = fmt.Appendf(b, "--- FAIL: Test%s%d (0.%02ds)\n    %s/%s_test.go:%d: got %q, want %q\n",
				upper[g.rng.IntN(26):][:1]+words[g.rng.IntN(30)], g.rng.IntN(100), g.rng.IntN(100), o.Project, words[g.rng.IntN(30)],
				g.rng.IntN(900)+1, words[g.rng.IntN(30)], words[g.rng.IntN(30)])
		case 2:
			b = fmt.Appendf(b, "%s/.cache/go-build/%s/%s-d\twritten %d bytes to %s/evcap-%s\n",
				o.Home, g.pick(hexd, 2), g.pick(hexd, 40), g.rng.IntN(1<<20), o.Temp, g.pick(digits, 9))
		case 3:
			b = fmt.Appendf(b, "ok  \tgithub.com/example/app/%s\t0.%03ds\tcoverage: %d.%d%% of statements\n",
				words[g.rng.IntN(40)], g.rng.IntN(1000), g.rng.IntN(100), g.rng.IntN(10))
		case 4:
			for i := 0; i < 8; i++ {
				b = append(b, words[g.rng.IntN(len(words))]...)
				b = append(b, ' ')
			}
			b = append(b, '\n')
		default:
			b = fmt.Appendf(b, "%s:%d:\t// TODO(%s): %s \"%s\" \\ %s\r\n", o.Project+"/internal/"+words[g.rng.IntN(40)]+".go",
				g.rng.IntN(500), words[g.rng.IntN(20)], words[g.rng.IntN(50)], words[g.rng.IntN(50)], words[g.rng.IntN(50)])
		}
	}
	return string(b)
}

// turn makes the next turn's content and plants secrets and negatives.
func (g *run) turn() *turn {
	t := &turn{
		thinking: g.streamed(20 + g.rng.IntN(40)),
		text:     g.streamed(20 + g.rng.IntN(80)),
		command:  commands[g.rng.IntN(len(commands))],
	}
	size := g.o.ToolOutput/2 + g.rng.IntN(g.o.ToolOutput+1)
	t.output = g.toolOutput(size)
	if g.o.SecretEvery > 0 && g.st.Turns%g.o.SecretEvery == 0 {
		g.plant(t)
	}
	return t
}
