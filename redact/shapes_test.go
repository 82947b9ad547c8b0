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
