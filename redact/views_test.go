package redact

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// escapeAll spells every byte of s as a \u00XX escape.
func escapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\u%04x`, s[i])
	}
	return b.String()
}

func percentAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// TestDecodedViews plants a fake key in the encodings a reader decodes in
// their head, in JSON and in text, and checks that no encoded or plain
// form of its secret part survives.
func TestDecodedViews(t *testing.T) {
	g := newGen()
	body := g.s(urlSafe, 93)
	key := "sk-" + "ant-api03-" + body + "AA"
	b64 := base64.StdEncoding.EncodeToString([]byte(key))
	b64url := base64.RawURLEncoding.EncodeToString([]byte("export ANTHROPIC_API_KEY=" + key + "\n"))
	twice := base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte(key))))
	cases := []struct {
		name, in string
		reason   string
	}{
		{"json-u-escape-one", `{"text":"key: \u0073k-ant-api03-` + body + `AA"}`, "one \\u escape hid the keyword from the line prefilter"},
		{"json-u-escape-all", `{"text":"` + escapeAll(key) + `"}`, "every byte escaped"},
		{"text-u-escape", "  {\"text\":\"\\u0073k-ant-api03-" + body + "AA\"}", "a JSON line with leading whitespace is kept as text; its escapes are decoded"},
		{"text-invalid-utf8", "\xff {\"text\":\"" + escapeAll(key) + "\"}", "a line with invalid UTF-8 elsewhere is text"},
		{"deep-json", strings.Repeat("[", 600) + `"\u0073k-ant-api03-` + body + `AA"` + strings.Repeat("]", 600), "nesting past the walker's depth falls back to text"},
		{"json-in-json", `{"partial_json":"{\"cmd\":\"echo \\u0073k-ant-api03-` + body + `AA\"}"}`, "an escape inside a string inside a string needs two decodings"},
		{"base64-text", "data: " + b64 + " (from kubectl get secret -o yaml)", "base64 of the key"},
		{"base64-json", `{"stdout":"apiVersion: v1\nkind: Secret\ndata:\n  key: ` + b64 + `\n"}`, "base64 in a tool output"},
		{"base64url-env", "echo " + b64url, "base64url of an env line"},
		{"base64-twice", "x " + twice + " y", "base64 of base64 (depth 2)"},
		{"percent", "https://example.com/cb?k=" + url.QueryEscape(key) + "&x=1", "query-escaped key (no byte changes, still found)"},
		{"percent-all", "https://example.com/cb?k=" + percentAll(key) + "&x=1", "every byte percent-encoded"},
		{"percent-in-base64", base64.StdEncoding.EncodeToString([]byte("cb?k=" + percentAll(key))), "percent-encoding inside base64 (depth 2)"},
	}
	r := testRedactor(t)
	for _, c := range cases {
		got, _ := r.Line([]byte(c.in))
		s := string(got)
		if testing.Verbose() {
			t.Logf("%s: %.300s", c.name, s)
		}
		if !strings.Contains(s, "[REDACTED:") {
			t.Errorf("%s (%s): nothing redacted:\n%s", c.name, c.reason, s)
			continue
		}
		for _, form := range []string{body[10:40], escapeAll(body[10:20]), percentAll(body[10:20]), b64[20:40], b64url[40:60], twice[30:50]} {
			if strings.Contains(s, form) {
				t.Errorf("%s (%s): output still holds %q:\n%s", c.name, c.reason, form, s)
			}
		}
		if again, f := r.Line(got); string(again) != s || len(f) != 0 {
			t.Errorf("%s: second pass changed it: %s %v", c.name, again, f)
		}
	}
}

// TestDecodedViewsLeaveText checks that decodable text holding no secret
// is kept.
func TestDecodedViewsLeaveText(t *testing.T) {
	cases := []struct{ in, reason string }{
		{base64.StdEncoding.EncodeToString([]byte("hello world, nothing to see here")), "printable base64 without a secret"},
		{"https://example.com/search?q=hello%20world%21&lang=en", "ordinary percent-encoding"},
		{`{"t":"caf\u00e9 \/path"}`, "escapes without a secret"},
		{"sha256:" + strings.Repeat("0123456789abcdef", 4), "hex digest decodes to binary"},
		{"/usr/local/go/src/runtime/proc.go:250", "a path is base64 alphabet but decodes to binary"},
	}
	r := testRedactor(t)
	for _, c := range cases {
		if got, f := r.Line([]byte(c.in)); string(got) != c.in || len(f) > 0 {
			t.Errorf("%s: changed: %s %v", c.reason, got, f)
		}
	}
}

func TestAnyHomeDirectory(t *testing.T) {
	cases := []struct{ in, want, reason string }{
		{"cd /home/bob/src && ls", "cd <HOME>/src && ls", "another user's home on Linux"},
		{"/Users/carol.smith/Library/x", "<HOME>/Library/x", "macOS home with a dot in the name"},
		{"/Users/Shared/x", "/Users/Shared/x", "/Users/Shared is nobody's home"},
		{"open /root/.bashrc", "open <HOME>/.bashrc", "root's home"},
		{"/root", "<HOME>", "root's home alone"},
		{`C:\Users\dave\proj`, `<HOME>\proj`, "Windows home"},
		{`C:\\Users\\dave\\proj`, `<HOME>\\proj`, "Windows home escaped once more"},
		{"c:/Users/dave/proj", "<HOME>/proj", "Windows home with slashes"},
		{"~/.claude/projects/-home-erin-proj/x.jsonl", "~/.claude/projects/<HOME>-proj/x.jsonl", "Claude project slug of a Linux home"},
		{"projects/-Users-frank-code-app", "projects/<HOME>-code-app", "Claude slug of a macOS home"},
		{"projects/-root-demo", "projects/<HOME>-demo", "Claude slug of /root"},
		{"projects/C--Users-gina-app", "projects/<HOME>-app", "Claude slug of a Windows home"},
		{"file:///home/hank/a.txt", "file://<HOME>/a.txt", "file URL"},
		{"/home/alice/src/demo/main.go", "<PROJECT>/main.go", "the configured project still wins"},
		{"(/home/ivy.)", "(<HOME>.)", "a trailing dot is punctuation"},
	}
	r := testRedactor(t)
	for _, c := range cases {
		if got, _ := r.Text([]byte(c.in)); string(got) != c.want {
			t.Errorf("%s: Text(%q) = %q, want %q", c.reason, c.in, got, c.want)
		}
	}
	// --home for a home outside the usual places keeps working.
	r2, err := New(Options{Home: "/data/users/jo"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r2.Text([]byte("/data/users/jo/x and /home/kim/y")); string(got) != "<HOME>/x and <HOME>/y" {
		t.Errorf("custom home: %q", got)
	}
}

// TestPathAfterASeparator: a configured path after another separator is
// still the path (git names a file outside the repository a//tmp/x in a
// diff, file URLs have three slashes), as scan, the gate sanitized output
// must pass, counts it; a path inside a longer one is not.
func TestPathAfterASeparator(t *testing.T) {
	cases := []struct{ in, want, reason string }{
		{"diff --git a//tmp/evcap-run-1/notes.md b//tmp/evcap-run-1/notes.md",
			"diff --git a/<TMP>/notes.md b/<TMP>/notes.md", "a git diff of a file outside the repository"},
		{"+++ b//home/alice/src/demo/main.go", "+++ b/<PROJECT>/main.go", "the project in a diff header"},
		{"file:///tmp/evcap-run-1/trace.txt", "file://<TMP>/trace.txt", "a file URL"},
		{"/var/tmp/evcap-run-1/x", "/var/tmp/evcap-run-1/x", "a path inside another is not it"},
	}
	r := testRedactor(t)
	for _, c := range cases {
		if got, _ := r.Line([]byte(c.in)); string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.reason, got, c.want)
		}
	}
}
