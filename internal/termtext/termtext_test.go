package termtext

import "testing"

func TestEscape(t *testing.T) {
	for _, c := range []struct{ reason, in, want string }{
		{"plain text is kept", "assistant/text", "assistant/text"},
		{"non-ASCII letters are kept", "résumé ✓ 日本", "résumé ✓ 日本"},
		{"newline and tab are spelled out", "a\nb\tc", `a\nb\tc`},
		{"an ANSI colour sequence cannot reach the terminal", "\x1b[31mred", `\x1b[31mred`},
		{"carriage return and bell", "x\ry\a", `x\x0dy\x07`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"a C1 CSI (U+009B) is escaped", "a\u009b2Jb", `a\x9b2Jb`},
		{"U+00A0 is printable and kept", "a\u00a0b", "a\u00a0b"},
		{"a raw 0x9b byte (invalid UTF-8) becomes U+FFFD", "a\x9b2Jb", "a\ufffd2Jb"},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("%s: Escape(%q) = %q, want %q", c.reason, c.in, got, c.want)
		}
	}
}
