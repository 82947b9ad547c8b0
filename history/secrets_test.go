package history_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

// fakeToken makes a GitHub-token-shaped fake secret, new on every run, so
// that no checked-in file can hold it and a leak cannot be a left-over.
func fakeToken(t *testing.T) string {
	t.Helper()
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 36)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return "ghp_" + string(b)
}

// plant is where the tools scenario's stored sessions hold a prompt, a
// tool's output and a file's content, as text every CLI stores verbatim.
type plant struct{ prompt, output, file string }

var plantAt = plant{
	prompt: "List the files, then read the README",
	output: "README.md",
	file:   "A tiny sample project used for capture tests.",
}

// planted copies the tools run of a provider into a temp dir with a fresh
// secret after the prompt, the listing and the file text.
func planted(t *testing.T, provider string, secrets plant) string {
	t.Helper()
	src := filepath.Join(corpus, provider, "tools")
	dir := t.TempDir()
	if provider == "opencode" {
		db, err := os.ReadFile(filepath.Join(src, "opencode.db"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "opencode.db")
		if err := os.WriteFile(p, db, 0o600); err != nil {
			t.Fatal(err)
		}
		// A writable copy of the test's own file, changed with SQL.
		conn, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, r := range [][2]string{{plantAt.prompt, secrets.prompt}, {plantAt.output + `\n`, secrets.output}, {plantAt.file, secrets.file}} {
			if _, err := conn.Exec(`UPDATE part SET data = replace(data, ?, ?)`, r[0], r[0]+" "+r[1]); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	b, err := os.ReadFile(filepath.Join(src, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	s = strings.ReplaceAll(s, plantAt.prompt, plantAt.prompt+" "+secrets.prompt)
	s = strings.ReplaceAll(s, plantAt.file, plantAt.file+" "+secrets.file)
	// The listing: only where it is a tool's output, not the file's name
	// in the model's words.
	for _, ctx := range []string{`"README.md\n`, `"README.md"`, `Output: README.md`, `"README.md\\n`} {
		s = strings.ReplaceAll(s, ctx, strings.Replace(ctx, "README.md", "README.md "+secrets.output, 1))
	}
	p := filepath.Join(dir, "history.jsonl")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlantedSecretsAreRedactedAndScanClean(t *testing.T) {
	red, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, provider := range history.Providers() {
		t.Run(provider, func(t *testing.T) {
			secrets := plant{prompt: fakeToken(t), output: fakeToken(t), file: fakeToken(t)}
			path := planted(t, provider, secrets)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Unredacted, every planted secret reaches the capture: the
			// places are ones the import really carries.
			op, err := history.Open(context.Background(), history.Target{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			var plain bytes.Buffer
			if _, err := history.Import(context.Background(), op.Entries, &plain, history.Options{Provider: op.Provider}); err != nil {
				t.Fatal(err)
			}
			op.Entries.Close()
			for _, s := range []string{secrets.prompt, secrets.output, secrets.file} {
				if !bytes.Contains(plain.Bytes(), []byte(s)) {
					t.Fatalf("a planted secret does not reach an unredacted import")
				}
			}
			op, err = history.Open(context.Background(), history.Target{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			defer op.Entries.Close()
			var imp bytes.Buffer
			st, err := history.Import(context.Background(), op.Entries, &imp, history.Options{Provider: op.Provider,
				Redactor: red, CaptureID: "01JDX0000000000000000000AA"})
			if err != nil {
				t.Fatal(err)
			}
			for where, s := range map[string]string{"prompt": secrets.prompt, "tool output": secrets.output, "file content": secrets.file} {
				if !bytes.Contains(raw, []byte(s)) {
					t.Fatalf("the %s secret was not planted", where)
				}
				if bytes.Contains(imp.Bytes(), []byte(s)) {
					t.Errorf("the %s secret is in the import", where)
				}
			}
			if st.Redacted < 3 {
				t.Errorf("%d redactions, want at least one per planted secret", st.Redacted)
			}
			var san bytes.Buffer
			if _, err := sanitize.Sanitize(bytes.NewReader(imp.Bytes()), "import", &san, sanitize.Options{}); err != nil {
				t.Fatal(err)
			}
			fs, err := sc.Read(bytes.NewReader(san.Bytes()), "sanitized", scan.KindCapture)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				t.Errorf("scan of the sanitized import: %v", f)
			}
		})
	}
}
