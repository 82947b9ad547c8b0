package redact

import (
	"strings"
	"testing"
)

// Shapes a secret takes in a capture beyond the plain embeddings of
// TestRecallOnFakeSecrets, each found by the planted-secret matrix
// (internal/planted) as a survivor: the fake secrets are made at run time
// and the case says what must not be left.
func TestSecretShapes(t *testing.T) {
	g := newGen()
	body := []string{g.s(b64, 64), g.s(b64, 64), g.s(b64, 22) + "=="}
	begin, end := "-----BEGIN "+"RSA PRIVATE KEY-----", "-----END RSA "+"PRIVATE KEY-----"
	cases := []struct {
		name, in, want string
	}{
		{
			// A tool summary joins the command's lines with spaces and
			// cuts it with an ellipsis before the END line.
			name: "pem-cut-by-a-summary",
			in:   `{"summary":"printf '%s\\n' '` + begin + " " + body[0] + " " + body[1][:20] + `…"}`,
			want: `{"summary":"printf '%s\\n' '[REDACTED:private-key-block]…"}`,
		},
		{
			name: "pem-unterminated-then-quote",
			in:   "cat <<'EOF' > id\n" + begin + "\n" + body[0] + "\n" + body[1] + "'\nnext",
			want: "cat <<'EOF' > id\n[REDACTED:private-key-block]'\nnext",
		},
		{
			// With an END, the block stops there and the text after it is kept.
			name: "pem-terminated-keeps-what-follows",
			in:   begin + "\n" + strings.Join(body, "\n") + "\n" + end + "\ndone and dusted",
			want: "[REDACTED:private-key-block]\ndone and dusted",
		},
	}
	r := testRedactor(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []byte
			if strings.HasPrefix(c.in, "{") {
				got, _ = r.Line([]byte(c.in))
			} else {
				got, _ = r.Text([]byte(c.in))
			}
			if string(got) != c.want {
				t.Errorf("\n in: %s\ngot: %s\nwant: %s", c.in, got, c.want)
			}
		})
	}
}

// A private key given to Text one line per call (evcap record redacts
// stderr so) loses every line: its BEGIN line by the rule, its body and
// END lines because Text remembers the open block. A line that is not
// part of a key, and base64 after the END line, are kept.
func TestTextKeyLineByLine(t *testing.T) {
	g := newGen()
	r := testRedactor(t)
	after := g.s(b64, 64)
	in := []string{
		"error: request failed with credential -----BEGIN " + "RSA PRIVATE KEY-----",
		"Proc-Type: 4,ENCRYPTED",
		"DEK-Info: AES-128-CBC," + g.s("0123456789ABCDEF", 32),
		"",
		g.s(b64, 64),
		"[CONTENT_DELTA] a marker line between two lines of the key",
		g.s(b64, 64),
		"  " + g.s(b64, 22) + "==\r",
		"-----END RSA " + "PRIVATE KEY----- (exit 1)",
		after,
	}
	tok := "[REDACTED:private-key-block]"
	want := []string{
		"error: request failed with credential " + tok,
		tok,
		tok,
		"",
		tok,
		in[5],
		tok,
		"  " + tok + "\r",
		tok + " (exit 1)",
		after,
	}
	for i, l := range in {
		got, f := r.Text([]byte(l))
		if string(got) != want[i] {
			t.Errorf("line %d:\n in: %q\ngot: %q\nwant: %q", i, l, got, want[i])
		}
		if string(got) != l && (len(f) != 1 || f[0].Rule != RulePrivateKey) {
			t.Errorf("line %d: findings %v", i, f)
		}
	}
	// Redacting the output again changes nothing, and opens no block.
	for i, l := range want {
		if got, _ := r.Text([]byte(l)); string(got) != l {
			t.Errorf("second pass, line %d: %q became %q", i, l, got)
		}
	}
	// A whole block in one text leaves nothing open.
	whole := "-----BEGIN " + "EC PRIVATE KEY-----\n" + g.s(b64, 64) + "\n-----END EC " + "PRIVATE KEY-----"
	if got, _ := r.Text([]byte(whole)); string(got) != tok {
		t.Errorf("whole block: %q", got)
	}
	if got, _ := r.Text([]byte(after)); string(got) != after {
		t.Errorf("base64 after a whole block was replaced: %q", got)
	}
}
