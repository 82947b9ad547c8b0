package redact

import (
	"bytes"
	"sync"
)

// keyLines is what Text remembers between calls: that a private key block
// began in an earlier text and has not ended yet.
//
// Callers that redact a stream one line per call (evcap record does so for
// stderr, argv and marker lines) hand Text the BEGIN line of a key printed
// line by line on its own; the rule replaces that line, but the body lines
// that follow are plain base64 that no rule can tell from other base64.
// So after a text whose private key span runs to its end without an END
// line, Text replaces every later text that is a body line (base64, or a
// PEM/PGP header such as Proc-Type: or Version:) and the END line, until
// the END line or maxKeyLines texts later. This is the only state of a
// Redactor; it can only make Text replace more, never less, and Line, JSON
// and Scan neither read nor change it.
type keyLines struct {
	mu   sync.Mutex
	left int // texts still treated as a possible part of the block; 0 = none open
}

// maxKeyLines bounds how many texts after a BEGIN line may be body lines:
// an RSA key of 16384 bits is about 200 lines of 64 characters.
const maxKeyLines = 512

var (
	pemEnd     = []byte("-----END")
	privateKey = []byte("PRIVATE KEY")
	dashes     = []byte("-----")
)

// textKeyLines adds the span of a body or END line of an open block to
// spans (findSpans' result for text), and opens or closes the block.
func (r *Redactor) textKeyLines(text []byte, spans []span) []span {
	if r.off.privateKey {
		return spans
	}
	kl := &r.keyLines
	kl.mu.Lock()
	defer kl.mu.Unlock()
	if kl.left > 0 {
		kl.left--
		if e := endLine(text); e > 0 {
			spans = cover(spans, 0, e)
			kl.left = 0
		} else if s, e, ok := bodyLine(text); ok {
			spans = cover(spans, s, e)
		}
	}
	for _, sp := range spans {
		if sp.rule != RulePrivateKey {
			continue
		}
		tail := bytes.TrimRight(text[sp.end:], " \t\r\n")
		if len(tail) == 0 && bytes.Contains(text[sp.start:sp.end], []byte("-----BEGIN")) && !bytes.Contains(text[sp.start:sp.end], pemEnd) {
			kl.left = maxKeyLines
		}
	}
	return spans
}

// endLine returns the end of "-----END … PRIVATE KEY…-----" in text, or 0.
func endLine(text []byte) int {
	k := bytes.Index(text, pemEnd)
	if k < 0 {
		return 0
	}
	rest := text[k+len(pemEnd):]
	p := bytes.Index(rest, privateKey)
	if p < 0 {
		return 0
	}
	d := bytes.Index(rest[p:], dashes)
	if d < 0 {
		return 0
	}
	return k + len(pemEnd) + p + d + len(dashes)
}

// bodyLine reports whether text, without surrounding blanks, is a line of
// a key block's body: base64, or an armor header ("Proc-Type: 4,ENCRYPTED",
// "DEK-Info: …", PGP's "Version: …" and "Comment: …"). It returns the
// bounds of that content.
func bodyLine(text []byte) (int, int, bool) {
	s, e := 0, len(text)
	for s < e && isBlank(text[s]) {
		s++
	}
	for e > s && isBlank(text[e-1]) {
		e--
	}
	if s == e {
		return 0, 0, false
	}
	line := text[s:e]
	for _, h := range []string{"Proc-Type:", "DEK-Info:", "Version:", "Comment:", "Hash:"} {
		if bytes.HasPrefix(line, []byte(h)) {
			return s, e, true
		}
	}
	for _, c := range line {
		if !isAlnum(c) && c != '+' && c != '/' && c != '=' {
			return 0, 0, false
		}
	}
	return s, e, true
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// cover replaces the spans overlapping [s, e) with one private key span
// over their union, keeping spans sorted.
func cover(spans []span, s, e int) []span {
	out := spans[:0:0]
	for _, sp := range spans {
		if sp.end <= s || sp.start >= e {
			continue
		}
		s, e = min(s, sp.start), max(e, sp.end)
	}
	placed := false
	for _, sp := range spans {
		if sp.end > s && sp.start < e {
			continue
		}
		if !placed && sp.start >= e {
			out = append(out, span{start: s, end: e, rule: RulePrivateKey, repl: redactedToken(RulePrivateKey)})
			placed = true
		}
		out = append(out, sp)
	}
	if !placed {
		out = append(out, span{start: s, end: e, rule: RulePrivateKey, repl: redactedToken(RulePrivateKey)})
	}
	return out
}
