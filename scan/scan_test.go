package scan_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/scan"
	"github.com/google/go-cmp/cmp"
)

// fakeKey builds a fake GitHub token at run time, so no token-shaped
// string is checked in.
func fakeKey() string { return "gh" + "p_" + strings.Repeat("Zk3v9QmT2x", 4)[:36] }

// rec is one capture record around a payload.
func rec(seq int, stage, eventType, payload string) string {
	return fmt.Sprintf(`{"schemaVersion":1,"captureId":"00000000000000000000000000","sequence":%d,"timestamp":"+0.000s","provider":"claude","sessionId":"","turnId":"","stage":%q,"eventType":%q,"payload":%s,"redactions":[]}`,
		seq, stage, eventType, payload)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func uescape(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

func claudeDelta(seq int, index int, text string) string {
	return rec(seq, "native_in", "stream_event", fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}},"parent_tool_use_id":null}`, index, jsonString(text)))
}

func TestFindsWhatAReaderSees(t *testing.T) {
	key := fakeKey()
	pct := ""
	for i := 0; i < len(key); i++ {
		pct += fmt.Sprintf("%%%02X", key[i])
	}
	filler := make([]string, 0, 50)
	for i := range 50 {
		filler = append(filler, claudeDelta(10+i, 1, strings.Repeat("other block text ", 20)))
	}
	pemBody := strings.Repeat("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n", 3)
	cases := []struct {
		name, capture string
		rule, decoded string
		reason        string
	}{
		{"plain", rec(1, "native_in", "message", `{"type":"message","content":`+jsonString("use "+key)+`}`), redact.RuleGitHubToken, "", "in plain sight"},
		{"u-escaped whole", rec(1, "native_in", "message", `{"type":"message","content":"use `+uescape(key)+`"}`), redact.RuleGitHubToken, "", "a JSON string is read decoded"},
		{"u-escaped part", rec(1, "native_in", "message", `{"type":"message","content":"use g\u0068`+key[2:]+`"}`), redact.RuleGitHubToken, "", "one escape must not hide a key"},
		{"json key", rec(1, "native_in", "tool", `{"input":{`+jsonString(key)+`:1}}`), redact.RuleGitHubToken, "key", "object keys are checked"},
		{"text line holding json", rec(1, "native_in", "non_json", jsonString(`   {"type":"message","content":"`+uescape(key)+`"}`)), redact.RuleGitHubToken, "", "a line kept as text because of leading space is parsed"},
		{"literal escapes in text", rec(1, "native_in", "non_json", jsonString(`{"broken": "`+uescape(key)+`"`)), redact.RuleGitHubToken, "escape", "escapes in text that is not valid JSON are decoded"},
		{"base64", rec(1, "native_in", "message", `{"content":`+jsonString("token: "+base64.StdEncoding.EncodeToString([]byte("TOKEN="+key)))+`}`), redact.RuleGitHubToken, "base64", "printable base64 is decoded"},
		{"base64url", rec(1, "native_in", "message", `{"content":`+jsonString(base64.RawURLEncoding.EncodeToString([]byte(key+"??>>")))+`}`), redact.RuleGitHubToken, "base64", "base64url too"},
		{"percent", rec(1, "native_in", "message", `{"content":`+jsonString("https://x.test/cb?t="+pct)+`}`), redact.RuleGitHubToken, "percent", "percent-encoding is decoded"},
		{"deltas", claudeDelta(1, 0, key[:5]) + "\n" + claudeDelta(2, 0, key[5:20]) + "\n" + claudeDelta(3, 0, key[20:]), redact.RuleGitHubToken, "deltas", "a key split across deltas is put back together"},
		{"deltas far apart", claudeDelta(1, 0, key[:18]) + "\n" + strings.Join(filler, "\n") + "\n" + claudeDelta(99, 0, key[18:]), redact.RuleGitHubToken, "deltas", "however many lines sit between the parts"},
		{"pem body after redacted begin", rec(1, "native_in", "stderr", jsonString("[REDACTED:private-key-block]")) + "\n" +
			strings.Join(strings.Split(strings.TrimSpace(pemBody), "\n"), "\n"+rec(2, "native_in", "stderr", "")[:0]), redact.RulePrivateKey, "key-body", "body lines that follow a redacted BEGIN line"},
		{"env dump", rec(1, "native_in", "user", `{"content":`+jsonString("HOME=/x\nPGPASSWORD=Qx7"+"vT2mLp9sKw4\n")+`}`), scan.RuleCredential, "", "an env var naming a credential"},
		{"assignment after a colon", rec(1, "native_in", "message", `{"content":`+jsonString("the value you asked for: PGPASSWORD=Qx7"+"vT2mLp9sKw4 (keep it)")+`}`), scan.RuleCredential, "", "one assignment must not hide the next"},
		{"remnant", claudeDelta(1, 0, "key: [REDACTED:anthropic-key]") + "\n" + claudeDelta(2, 0, "Zq7Kx2mLp9sKw4Rt5Yb8") + "\n", scan.RuleRemnant, "deltas", "the part of a key a redactor left behind a token"},
		{"npmrc", rec(1, "native_in", "user", `{"content":`+jsonString("//registry.npmjs.org/:_authToken=8f2c1a4e-5b6d-4c3e-9a7f-1e2d3c4b5a69")+`}`), scan.RuleNPMAuth, "", "an .npmrc auth token"},
		{"url password", rec(1, "native_in", "user", `{"content":`+jsonString("redis://:s3cr"+"etPw9x@cache:6379/0")+`}`), redact.RuleURLPassword, "", "a URL password with an empty user"},
	}
	// The PEM case's body lines are separate stderr records.
	var pemLines []string
	pemLines = append(pemLines, rec(1, "native_in", "stderr", jsonString("[REDACTED:private-key-block]")))
	for i, l := range strings.Split(strings.TrimSpace(pemBody), "\n") {
		pemLines = append(pemLines, rec(2+i, "native_in", "stderr", jsonString(l)))
	}
	for i := range cases {
		if cases[i].name == "pem body after redacted begin" {
			cases[i].capture = strings.Join(pemLines, "\n")
		}
	}
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			found, err := sc.Read(strings.NewReader(c.capture+"\n"), "x.jsonl", scan.KindCapture)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range found {
				if f.Rule == c.rule && strings.Contains(f.Decoded, c.decoded) {
					if strings.Contains(f.String(), key) {
						t.Errorf("a finding holds the secret: %v", f)
					}
					return
				}
			}
			t.Errorf("%s: want rule %s (decoded %q), found %v", c.reason, c.rule, c.decoded, found)
		})
	}
}

// TestCleanTextStaysClean: text a reader would not call secret, next to
// everything the gate decodes.
func TestCleanTextStaysClean(t *testing.T) {
	lines := []string{
		rec(1, "native_in", "message", `{"content":"max_tokens: 4096, input_tokens=1234, cache_key=abc12345"}`),
		rec(2, "native_in", "message", `{"content":"export API_KEY=${API_KEY} and PASSWORD=<your password>"}`),
		rec(3, "native_in", "message", `{"apiKeySource":"ANTHROPIC_API_KEY","sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}`),
		rec(4, "native_in", "message", `{"content":"SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgdGV4dC4="}`),
		rec(5, "native_in", "message", `{"content":"see [REDACTED:openai-key] and <HOME>/x and session-0001"}`),
		rec(6, "native_in", "message", `{"content":"SECRET_NAME=prod/app/database SECRET_ARN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/app KEY_FILE=/etc/app/keys/server.pem"}`),
	}
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found, err := sc.Read(strings.NewReader(strings.Join(lines, "\n")), "x.jsonl", scan.KindCapture)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("false positive: %v", f)
	}
}

func TestAllowlist(t *testing.T) {
	key := fakeKey()
	line := rec(1, "native_in", "message", `{"content":`+jsonString(key)+`}`)
	sc, err := scan.New(scan.Options{Config: redact.Config{Allow: []string{key}}})
	if err != nil {
		t.Fatal(err)
	}
	found, err := sc.Read(strings.NewReader(line), "x.jsonl", scan.KindCapture)
	if err != nil || len(found) != 0 {
		t.Fatalf("allowlisted key: %v, %v", found, err)
	}
}

// TestRefusesWhatItCannotCheck: a file that is not a capture or fixture,
// an empty capture, a FIFO and an unreadable file are errors, not "clean",
// and a FIFO does not block.
func TestRefusesWhatItCannotCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notes := write("notes.txt", "just some notes\n")
	empty := write("empty.jsonl", "")
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{notes, empty} {
		done := make(chan error, 1)
		go func() { _, err := sc.Paths([]string{p}); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, scan.ErrNotScannable) {
				t.Errorf("%s: err = %v, want ErrNotScannable", filepath.Base(p), err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: scan blocked", filepath.Base(p))
		}
	}
	if os.Getuid() != 0 {
		locked := write("locked.jsonl", rec(1, "meta", "capture.start", `{}`))
		os.Chmod(locked, 0)
		if _, err := sc.Paths([]string{locked}); err == nil {
			t.Errorf("unreadable file: no error")
		}
	}
	// A FIFO inside a directory tree is skipped (only *.jsonl regular
	// files and fixture directories are read), not waited on.
	if _, err := sc.Paths([]string{dir + "/"}); err != nil && !errors.Is(err, scan.ErrNotScannable) {
		t.Errorf("directory: %v", err)
	}
}

// TestFixtureTreeAndBundle: goldens of a fixture and every entry of a
// bundle are read.
func TestFixtureTreeAndBundle(t *testing.T) {
	key := fakeKey()
	dir := t.TempDir()
	fx := filepath.Join(dir, "fx")
	os.MkdirAll(filepath.Join(fx, "golden"), 0o755)
	os.WriteFile(filepath.Join(fx, "fixture.json"), []byte("{\n  \"name\": \"fx\",\n  \"events\": [\n  ]\n}\n"), 0o644)
	os.WriteFile(filepath.Join(fx, "golden", "term.golden"), []byte("hello\nuse "+key+"\n"), 0o644)
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Paths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || len(res.Findings) != 1 || !strings.HasSuffix(res.Findings[0].File, "term.golden") || res.Findings[0].Line != 2 {
		t.Fatalf("fixture tree: %d files, findings %v", res.Files, res.Findings)
	}

	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("evcap-bundle/summary.md")
	w.Write([]byte("# run\n\nthe key was " + key + "\n"))
	w, _ = zw.Create("evcap-bundle/capture.jsonl")
	w.Write([]byte(rec(1, "meta", "capture.start", `{}`) + "\n"))
	zw.Close()
	bundle := filepath.Join(dir, "b.zip")
	os.WriteFile(bundle, zb.Bytes(), 0o644)
	res, err = sc.Paths([]string{bundle})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || len(res.Findings) != 1 || !strings.HasSuffix(res.Findings[0].File, "summary.md") {
		t.Fatalf("bundle: %d files, findings %v", res.Files, res.Findings)
	}
}

func TestGroupFindings(t *testing.T) {
	fs := []scan.Finding{
		{File: "b", Line: 3, Rule: "x", Pointer: "/p"},
		{File: "a", Line: 2, Rule: "y"},
		{File: "b", Line: 1, Rule: "x", Pointer: "/q"},
		{File: "b", Line: 1, Rule: "a"},
	}
	g := scan.GroupFindings(fs)
	var got []string
	for _, x := range g {
		got = append(got, fmt.Sprintf("%s %s %d %d", x.File, x.Rule, x.Count, x.Findings[0].Line))
	}
	want := "b a 1 1|b x 2 1|a y 1 2"
	if strings.Join(got, "|") != want {
		t.Fatalf("groups %q, want %q", strings.Join(got, "|"), want)
	}
	var out bytes.Buffer
	scan.WriteText(&out, g)
	if !strings.Contains(out.String(), "b: x (2)\n  1:0 /q\n  3:0 /p\n") {
		t.Fatalf("text:\n%s", out.String())
	}
}

// TestScansAPipeAsAFile: a capture or a fixture.json coming down a FIFO or
// standard input ("-") is read once and gives the findings the file
// gives, under the name it came by; a bundle down a pipe is refused (its
// zip directory is at its end), and "-" without Options.Stdin too.
func TestScansAPipeAsAFile(t *testing.T) {
	key := fakeKey()
	dir := t.TempDir()
	capture := rec(1, "meta", "capture.start", `{}`) + "\n" +
		rec(2, "native_in", "assistant", `{"type":"assistant","message":{"content":[{"type":"text","text":"use `+key+`"}]}}`) + "\n"
	fixture := "{\n  \"name\": \"fx\",\n  \"events\": [\n    {\"sequence\":1,\"stage\":\"native_in\",\"eventType\":\"assistant\",\"payload\":{\"text\":\"use " + key + "\"}}\n  ]\n}\n"
	fxDir := filepath.Join(dir, "fx")
	os.MkdirAll(fxDir, 0o755)
	for name, body := range map[string]string{"run.jsonl": capture, "fx/fixture.json": fixture} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(fs []scan.Finding, name string) string {
		var b strings.Builder
		for _, f := range fs {
			fmt.Fprintf(&b, "%s %d %d %s %s %s\n", strings.Replace(f.File, name, "NAME", 1), f.Line, f.Sequence, f.Rule, f.Pointer, f.Decoded)
		}
		return b.String()
	}
	for _, c := range []struct{ file, body string }{{"run.jsonl", capture}, {"fx/fixture.json", fixture}} {
		sc, err := scan.New(scan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := sc.Paths([]string{filepath.Join(dir, c.file)})
		if err != nil || len(want.Findings) == 0 {
			t.Fatalf("%s: %v, %d findings; want the key found", c.file, err, len(want.Findings))
		}
		fifo := filepath.Join(t.TempDir(), "pipe")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				f.WriteString(c.body)
				f.Close()
			}
		}()
		got, err := sc.Paths([]string{fifo})
		if err != nil {
			t.Fatalf("%s from a FIFO: %v", c.file, err)
		}
		if d := cmp.Diff(text(want.Findings, filepath.Join(dir, c.file)), text(got.Findings, fifo)); d != "" {
			t.Errorf("%s from a FIFO (-file +FIFO):\n%s", c.file, d)
		}
		in, err := scan.New(scan.Options{Stdin: strings.NewReader(c.body)})
		if err != nil {
			t.Fatal(err)
		}
		got, err = in.Paths([]string{scan.Stdin})
		if err != nil {
			t.Fatalf("%s from standard input: %v", c.file, err)
		}
		if d := cmp.Diff(text(want.Findings, filepath.Join(dir, c.file)), text(got.Findings, "-")); d != "" {
			t.Errorf("%s from standard input (-file +stdin):\n%s", c.file, d)
		}
	}
	zipped, err := scan.New(scan.Options{Stdin: strings.NewReader("PK\x03\x04 and the rest of a zip")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zipped.Paths([]string{scan.Stdin}); !errors.Is(err, scan.ErrNotScannable) {
		t.Errorf("a bundle on standard input: %v, want ErrNotScannable", err)
	}
	none, _ := scan.New(scan.Options{})
	if _, err := none.Paths([]string{scan.Stdin}); !errors.Is(err, scan.ErrNotScannable) {
		t.Errorf("- without Options.Stdin: %v, want ErrNotScannable", err)
	}
}
