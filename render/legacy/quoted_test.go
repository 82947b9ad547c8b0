package legacy

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestQuotedMatchesCompact: a delta marker built by quoted is the one
// name + compact(text) builds with encoding/json, on texts with every
// byte the escaping treats apart (quotes, backslashes, control bytes,
// <, > and &, DEL, U+2028, U+2029, invalid UTF-8, cut sequences) and on
// random ones, short and past the kept buffer's size.
func TestQuotedMatchesCompact(t *testing.T) {
	texts := []string{"", "plain words", `"quoted" and \back\slash`, "tab\tnew\nline\rcr\b\f", "<b>&amp;</b>", "\x00\x01\x1f\x7f",
		"line\u2028sep\u2029para", "bad \xff\xfe utf8", "cut \xe2\x82", "€ ü 日本 🎉", strings.Repeat("long text ", 8000)}
	pieces := []string{"a", "\"", "\\", "\n", "\x01", "<", "&", "\x7f", "\u2028", "\xff", "\xe2", "é", "🎉", " "}
	r := rand.New(rand.NewPCG(4, 2))
	for range 3000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	d := New()
	for _, text := range texts {
		for _, name := range []string{"[CONTENT_DELTA] ", "[THINKING_DELTA] "} {
			if got, want := d.quoted(name, text), name+compact(text); got != want {
				t.Fatalf("quoted(%q) = %q, want %q", text, got, want)
			}
		}
	}
}
