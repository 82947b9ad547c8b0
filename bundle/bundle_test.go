package bundle_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/bundle"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
	"github.com/sebdah/goldie/v2"
)

func scratch(t testing.TB) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "sanitized-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func buildBundle(t testing.TB, r corpusRun, capture []byte) (*bundle.Bundle, error) {
	t.Helper()
	so, sc := machine(r)
	return bundle.Build(context.Background(), bytes.NewReader(capture), r.Name, scratch(t),
		bundle.Options{EvcapVersion: "test", Sanitize: so, Scan: sc, Normalizer: newNormalizer})
}

func zipBytes(t testing.TB, b *bundle.Bundle) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := b.WriteZip(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestCorpusBundlesPassScan bundles every corpus run, then opens the
// archive as a user would and scans each entry again, independently of
// the check Build made.
func TestCorpusBundlesPassScan(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	for _, r := range corpusRuns(t) {
		t.Run(r.Name, func(t *testing.T) {
			capture := build(t, r)
			b, err := buildBundle(t, r, capture)
			if err != nil {
				t.Fatalf("bundle refused a corpus capture: %v", err)
			}
			archive := zipBytes(t, b)
			zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			entries := map[string][]byte{}
			for _, f := range zr.File {
				names = append(names, f.Name)
				if !f.Modified.Equal(bundle.ModTime()) {
					t.Errorf("%s: modified %v, want the fixed %v", f.Name, f.Modified, bundle.ModTime())
				}
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				data, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
				entries[f.Name] = data
				_, sc := machine(r)
				sc.Project = "/tmp/realcli/runs/" + r.Name + "/project"
				kind := scan.KindFile
				if strings.HasSuffix(f.Name, ".jsonl") {
					kind = scan.KindCapture
				}
				gate, err := scan.New(sc)
				if err != nil {
					t.Fatal(err)
				}
				found, err := gate.Read(bytes.NewReader(data), f.Name, kind)
				if err != nil {
					t.Fatal(err)
				}
				for _, fd := range found {
					t.Errorf("archive entry leaks: %s", fd)
				}
			}
			want := []string{"evcap-bundle/summary.md", "evcap-bundle/manifest.json", "evcap-bundle/capture.jsonl"}
			if strings.Join(names, " ") != strings.Join(want, " ") {
				t.Fatalf("entries %v, want %v", names, want)
			}

			var m bundle.Manifest
			if err := json.Unmarshal(entries["evcap-bundle/manifest.json"], &m); err != nil {
				t.Fatal(err)
			}
			if m.Provider != r.Provider || m.Agent.Version != r.Version || m.Exit.Code == nil || *m.Exit.Code != r.ExitCode {
				t.Errorf("manifest says provider %q, agent %+v, exit %v; want %s %s exit %d", m.Provider, m.Agent, m.Exit.Code, r.Provider, r.Version, r.ExitCode)
			}
			if !m.Census.Checked || m.Census.NativeLines == 0 {
				t.Errorf("census not run: %+v", m.Census)
			}
			var total int64
			for _, n := range m.Records {
				total += n
			}
			if got := int64(bytes.Count(entries["evcap-bundle/capture.jsonl"], []byte("\n"))); got != total || m.Records["native_in"] == 0 || m.Records["normalized_out"] == 0 {
				t.Errorf("manifest counts %v (total %d), the capture has %d records", m.Records, total, got)
			}
			if !bytes.Equal(entries["evcap-bundle/summary.md"], b.Summary) {
				t.Error("summary.md in the archive differs from Bundle.Summary")
			}
			summary := string(b.Summary)
			if !strings.HasPrefix(summary, "## evcap bundle: "+r.Provider+" "+r.Version) {
				t.Errorf("summary heading: %q", strings.SplitN(summary, "\n", 2)[0])
			}
			if strings.HasPrefix(filepath.Base(r.Name), "fatal-error") && strings.Contains(summary, "**First error:** none") {
				t.Errorf("a fatal-error run with no first error in its summary:\n%s", summary)
			}

			again, err := buildBundle(t, r, capture)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(zipBytes(t, again), archive) {
				t.Error("two bundles of the same capture differ")
			}
		})
	}
}

// fakeToken assembles a GitHub-token-shaped string at run time, so that no
// secret-looking literal sits in the repository.
func fakeToken(seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, seed))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("gh" + "p_")
	for range 36 {
		b = append(b, alnum[rng.IntN(len(alnum))])
	}
	return string(b)
}

// plant rewrites the record with the given sequence through edit.
func plant(t *testing.T, capture []byte, seq int64, edit func(*envelope.Record)) []byte {
	t.Helper()
	var out []byte
	rd := envelope.NewReader(bytes.NewReader(capture), "capture", envelope.ReaderOptions{})
	found := false
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Sequence == seq {
			edit(rec)
			found = true
		}
		out = envelope.AppendRecord(out, rec)
	}
	if !found {
		t.Fatalf("no record %d", seq)
	}
	return out
}

func claudeTools(t *testing.T) corpusRun {
	for _, r := range corpusRuns(t) {
		if r.Name == "claude/tools" {
			return r
		}
	}
	t.Fatal("no claude/tools in the corpus")
	return corpusRun{}
}

// TestPlantedSecretRefused bundles a capture declared already sanitized
// (AlreadySanitized: nothing rewrites it) with a fake token in one record:
// the scan must catch it, and Build must name the file, line, sequence and
// rule without repeating the secret.
func TestPlantedSecretRefused(t *testing.T) {
	r := claudeTools(t)
	token := fakeToken(7)
	so, sc := machine(r)
	var clean bytes.Buffer
	if _, err := sanitize.Sanitize(bytes.NewReader(build(t, r)), r.Name, &clean, so); err != nil {
		t.Fatal(err)
	}
	sc.Project = "/tmp/realcli/runs/" + r.Name + "/project"
	capture := plant(t, clean.Bytes(), 9, func(rec *envelope.Record) { rec.Notes = "debug: " + token })
	b, err := bundle.Build(context.Background(), bytes.NewReader(capture), r.Name, scratch(t),
		bundle.Options{EvcapVersion: "test", AlreadySanitized: true, Scan: sc, Normalizer: newNormalizer})
	var leak *bundle.LeakError
	if !errors.As(err, &leak) || !errors.Is(err, bundle.ErrLeak) {
		t.Fatalf("Build = (bundle %v, %v); want a *LeakError", b != nil, err)
	}
	if len(leak.Findings) != 1 {
		t.Fatalf("findings %v, want exactly the planted one", leak.Findings)
	}
	f := leak.Findings[0]
	if f.File != bundle.CaptureFile || f.Line != 9 || f.Sequence != 9 || f.Rule != "github-token" {
		t.Errorf("finding %+v, want capture.jsonl line 9 sequence 9 rule github-token", f)
	}
	msg := err.Error()
	if !strings.Contains(msg, "capture.jsonl:9 (sequence 9): rule github-token") {
		t.Errorf("message does not name the line and rule:\n%s", msg)
	}
	if strings.Contains(msg, token[4:]) {
		t.Error("the message repeats the secret")
	}

	// Without the planted token the same capture bundles as it is.
	if _, err := bundle.Build(context.Background(), bytes.NewReader(clean.Bytes()), r.Name, scratch(t),
		bundle.Options{EvcapVersion: "test", AlreadySanitized: true, Scan: sc, Normalizer: newNormalizer}); err != nil {
		t.Fatalf("the clean capture was refused: %v", err)
	}
}

// TestPlantedSecretNeverReachesArchive plants a fake token in each place
// of a record and bundles with sanitizing on. Whatever sanitize covers,
// the invariant is that the token is either removed or the bundle refused
// with the line and rule named; it never reaches the archive.
func TestPlantedSecretNeverReachesArchive(t *testing.T) {
	r := claudeTools(t)
	base := build(t, r)
	places := []struct {
		name string
		edit func(*envelope.Record, string)
	}{
		{"notes", func(rec *envelope.Record, tok string) { rec.Notes = tok }},
		{"source", func(rec *envelope.Record, tok string) { rec.Source = tok }},
		{"agent", func(rec *envelope.Record, tok string) { rec.Agent = tok }},
		{"model", func(rec *envelope.Record, tok string) { rec.Model = tok }},
		{"permissionMode", func(rec *envelope.Record, tok string) { rec.PermissionMode = tok }},
		{"eventType", func(rec *envelope.Record, tok string) { rec.EventType = "x:" + tok }},
		{"extra field", func(rec *envelope.Record, tok string) {
			rec.Extra = append(rec.Extra, envelope.Field{Key: "debug", Value: []byte(`"` + tok + `"`)})
		}},
		{"payload", func(rec *envelope.Record, tok string) {
			rec.Payload = append([]byte(`{"note":"`+tok+`",`), rec.Payload[1:]...)
		}},
	}
	refused := 0
	for i, p := range places {
		t.Run(p.name, func(t *testing.T) {
			token := fakeToken(uint64(100 + i))
			capture := plant(t, base, 9, func(rec *envelope.Record) { p.edit(rec, token) })
			b, err := buildBundle(t, r, capture)
			var leak *bundle.LeakError
			if errors.As(err, &leak) {
				refused++
				if !strings.Contains(err.Error(), "capture.jsonl:9 (sequence 9): rule github-token") {
					t.Errorf("refused without naming the line and rule: %v", err)
				}
				t.Logf("refused: %s", leak.Findings)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			archive := zipBytes(t, b)
			zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				rc, _ := f.Open()
				data, _ := io.ReadAll(rc)
				rc.Close()
				if bytes.Contains(data, []byte(token[4:20])) {
					t.Errorf("%s holds the token", f.Name)
				}
			}
		})
	}
	t.Logf("%d of %d placements refused by the scan, the rest removed by sanitize", refused, len(places))
}

// TestSecretInPayloadIsRedacted is the other side: a token in a payload
// is what sanitize is for, so the bundle is made and holds no trace of it.
func TestSecretInPayloadIsRedacted(t *testing.T) {
	r := claudeTools(t)
	token := fakeToken(11)
	capture := build(t, r)
	capture = bytes.Replace(capture, []byte(`"stage":"native_in","eventType":"system/init","payload":{`),
		[]byte(`"stage":"native_in","eventType":"system/init","payload":{"note":"key `+token+`",`), 1)
	if !bytes.Contains(capture, []byte(token)) {
		t.Fatal("token not planted")
	}
	b, err := buildBundle(t, r, capture)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	archive := zipBytes(t, b)
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		if bytes.Contains(data, []byte(token[4:20])) {
			t.Errorf("%s holds the token", f.Name)
		}
		if f.Name == "evcap-bundle/capture.jsonl" && !bytes.Contains(data, []byte("[REDACTED:github-token]")) {
			t.Errorf("capture.jsonl has no redaction token where the secret was")
		}
	}
	if b.Manifest.Sanitize.Redactions == 0 {
		t.Error("manifest counts no redaction")
	}
}

// TestFlagsMasked: a credential passed as a flag whose value no rule
// recognises is still masked in the manifest.
func TestFlagsMasked(t *testing.T) {
	r := claudeTools(t)
	r.Argv = append(append([]string(nil), r.Argv...), "--api-key", "plainvalue1", "--auth-token=plainvalue2", "MY_SECRET=plainvalue3", "--model", "sonnet")
	b, err := buildBundle(t, r, build(t, r))
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Join(b.Manifest.Argv, " ")
	if strings.Contains(argv, "plainvalue") {
		t.Errorf("argv keeps a credential: %s", argv)
	}
	for _, want := range []string{"--api-key [REDACTED:flag]", "--auth-token=[REDACTED:flag]", "MY_SECRET=[REDACTED:flag]", "--model sonnet", "--verbose"} {
		if !strings.Contains(argv, want) {
			t.Errorf("argv %q lacks %q", argv, want)
		}
	}
}

// TestSummaryGolden pins summary.md for a run with tools and one that
// ended in a fatal error (go test ./bundle -update rewrites them).
func TestSummaryGolden(t *testing.T) {
	md := goldie.New(t, goldie.WithNameSuffix(".md"))
	js := goldie.New(t, goldie.WithNameSuffix(".json"))
	for _, r := range corpusRuns(t) {
		if r.Name != "claude/tools" && r.Name != "claude/fatal-error" && r.Name != "codex/error-retry" {
			continue
		}
		b, err := buildBundle(t, r, build(t, r))
		if err != nil {
			t.Fatal(err)
		}
		md.Assert(t, strings.ReplaceAll(r.Name, "/", "-")+"-summary", b.Summary)
		js.Assert(t, strings.ReplaceAll(r.Name, "/", "-")+"-manifest", b.ManifestJSON())
	}
}
