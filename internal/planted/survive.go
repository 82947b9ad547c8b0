package planted

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Window is the length of the pieces of a secret's random part that count
// as a survivor: any 12 consecutive characters of it, anywhere a reader
// would see them.
const Window = 12

// Oracle judges outputs for one case. It is deliberately simple and knows
// nothing of the redactor or the gate: it collects what a reader sees in a
// file (every JSON string and key decoded, JSON inside strings parsed,
// strings at the same place in successive lines joined, as streamed deltas
// are rendered, and base64, percent and \u decodings of all of that) and
// looks for the secret's pieces.
type Oracle struct {
	windows map[string]bool
}

// NewOracle prepares the pieces of core.
func NewOracle(core []string) *Oracle {
	o := &Oracle{windows: map[string]bool{}}
	for _, c := range core {
		for i := 0; i+Window <= len(c); i++ {
			o.windows[c[i:i+Window]] = true
		}
	}
	return o
}

// Survives reports whether a piece of the secret can be read in data (a
// capture, a fixture.json, a golden, any text file).
func (o *Oracle) Survives(data []byte) bool {
	v := newViews()
	for _, line := range bytes.Split(data, []byte("\n")) {
		v.line(line)
	}
	for _, t := range v.all() {
		if o.in(t) {
			return true
		}
	}
	return false
}

// SurvivesIn reports survival in any of several files.
func (o *Oracle) SurvivesIn(files ...[]byte) bool {
	for _, f := range files {
		if o.Survives(f) {
			return true
		}
	}
	return false
}

func (o *Oracle) in(t string) bool {
	if o.has(t) {
		return true
	}
	for _, d := range decodings(t) {
		if o.has(d) {
			return true
		}
		for _, dd := range decodings(d) {
			if o.has(dd) {
				return true
			}
		}
	}
	return false
}

func (o *Oracle) has(t string) bool {
	for i := 0; i+Window <= len(t); i++ {
		if o.windows[t[i:i+Window]] {
			return true
		}
	}
	return false
}

type views struct {
	texts  []string
	joined map[string]*strings.Builder
	order  []string
}

func newViews() *views { return &views{joined: map[string]*strings.Builder{}} }

func (v *views) all() []string {
	out := v.texts
	for _, k := range v.order {
		out = append(out, v.joined[k].String())
	}
	return out
}

func (v *views) line(l []byte) {
	t := bytes.TrimSuffix(bytes.TrimSpace(l), []byte(","))
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && gjson.ValidBytes(t) {
		r := gjson.ParseBytes(t)
		v.walk(r, r.Get("stage").String()+":", 0)
		return
	}
	v.texts = append(v.texts, string(l))
	v.join("text-lines", string(l))
}

// join appends s to the text of every string seen at the same place.
func (v *views) join(place, s string) {
	b := v.joined[place]
	if b == nil {
		b = &strings.Builder{}
		v.joined[place] = b
		v.order = append(v.order, place)
	}
	b.WriteString(s)
}

var indexRe = regexp.MustCompile(`/[0-9]+`)

func (v *views) walk(r gjson.Result, path string, depth int) {
	if depth > 64 {
		v.texts = append(v.texts, r.Raw)
		return
	}
	switch {
	case r.IsObject():
		r.ForEach(func(k, x gjson.Result) bool {
			v.texts = append(v.texts, k.String())
			v.walk(x, path+"/"+k.String(), depth+1)
			return true
		})
	case r.IsArray():
		i := 0
		r.ForEach(func(_, x gjson.Result) bool {
			v.walk(x, path+"/"+strconv.Itoa(i), depth+1)
			i++
			return true
		})
	case r.Type == gjson.String:
		s := r.String()
		v.texts = append(v.texts, s)
		place := indexRe.ReplaceAllString(path, "/#")
		// A legacy marker's argument is a JSON string of its own.
		if i := strings.Index(s, "] "); strings.HasPrefix(s, "[") && i > 0 && !strings.Contains(s[:i], " ") {
			arg := s[i+2:]
			if a := gjson.Parse(arg); a.Type == gjson.String {
				arg = a.String()
			}
			v.join(place+s[:i+1], arg)
		} else {
			v.join(place, s)
		}
		if t := strings.TrimSpace(s); len(t) > 1 && (t[0] == '{' || t[0] == '[') && gjson.Valid(t) {
			v.walk(gjson.Parse(t), path+"|", depth+1)
		}
	}
}

var b64Re = regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}={0,2}`)

// decodings are t with \u and other escapes decoded, percent-decoded, and
// each base64 run decoded.
func decodings(t string) []string {
	var out []string
	if strings.Contains(t, `\`) {
		if u, err := strconv.Unquote(`"` + strings.ReplaceAll(strings.ReplaceAll(t, `"`, `\"`), "\n", `\n`) + `"`); err == nil && u != t {
			out = append(out, u)
		}
	}
	if strings.Contains(t, "%") {
		var b strings.Builder
		for i := 0; i < len(t); i++ {
			if t[i] == '%' && i+2 < len(t) {
				if n, err := strconv.ParseUint(t[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(n))
					i += 2
					continue
				}
			}
			b.WriteByte(t[i])
		}
		out = append(out, b.String())
	}
	for _, m := range b64Re.FindAllString(t, 64) {
		raw := strings.TrimRight(m, "=")
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			for cut := 0; cut < 4 && len(raw)-cut >= 16; cut++ {
				if b, err := enc.DecodeString(raw[:len(raw)-cut]); err == nil {
					out = append(out, string(b))
					break
				}
			}
		}
	}
	return out
}
