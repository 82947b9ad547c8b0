package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/render/legacy"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/sanitize"
)

// fixturesDir is the repository's fixture tree (corpusDir, the raw corpus,
// is declared in normalize_test.go).
const fixturesDir = "../../fixtures/testdata"

// corpusEntry is what the corpus manifest says about one capture.
type corpusEntry struct {
	CLI        string `json:"cli"`
	Capture    string `json:"capture"`
	NPMVersion string `json:"npm_version"`
	Package    string `json:"package"`
}

func corpusManifest(t *testing.T) []corpusEntry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(corpusDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []corpusEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatalf("corpus manifest: %v", err)
	}
	if len(entries) < 20 {
		t.Fatalf("corpus manifest lists %d captures, want at least 20", len(entries))
	}
	return entries
}

// corpusCapture records a raw corpus stdout file the way an integration
// using package capture would: each line as native_in, the events the
// provider's normalizer derives from it as normalized_out, and the legacy
// markers derived from those as legacy_out. Clock and capture id are fixed,
// so the capture is the same on every run.
func corpusCapture(t *testing.T, e corpusEntry) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, e.CLI, e.Capture+".stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tick := time.Date(2026, 11, 29, 19, 32, 5, 0, time.UTC)
	clock := func() time.Time { tick = tick.Add(7 * time.Millisecond); return tick }
	var out bytes.Buffer
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KB8J6Z0000000000000CRPS0", Now: clock, FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: e.CLI, Now: clock})
	c.Begin(capture.Start{EvcapVersion: "corpus", Provider: e.CLI, OS: "linux", Arch: "amd64", CLIName: e.CLI, CLIVersion: e.NPMVersion})
	n, err := newNormalizer(e.CLI)
	if err != nil {
		t.Fatal(err)
	}
	d := legacy.New()
	emit := func(evs []event.Event) {
		for _, ev := range evs {
			c.Normalized(ev)
			for _, m := range d.Event(ev) {
				c.Legacy([]byte(m.Line), m.Cause)
			}
		}
	}
	lr := lines.NewReader(f)
	for {
		line, err := lr.Next()
		if err != nil && len(line) == 0 {
			break
		}
		seq := c.Native(line)
		emit(n.Line(seq, line))
	}
	emit(n.End())
	for _, m := range d.End() {
		c.Legacy([]byte(m.Line), m.Cause)
	}
	code := 0
	if err := c.Close(capture.End{ExitCode: &code, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestCorpusFixtures promotes every corpus capture and compares the result
// with fixtures/testdata/<provider>/<capture> byte for byte; with -update it
// writes them. Promoting is deterministic, so a second promote run changes
// nothing (the test promotes twice to prove it).
func TestCorpusFixtures(t *testing.T) {
	update := flag.Lookup("update") != nil && flag.Lookup("update").Value.String() == "true"
	for _, e := range corpusManifest(t) {
		t.Run(e.CLI+"/"+e.Capture, func(t *testing.T) {
			name := e.CLI + "/" + e.Capture + ".stdout.jsonl"
			clean := sanitizeCorpusCapture(t, e, corpusCapture(t, e))
			fx, err := replay.LoadCapture(bytes.NewReader(clean), name)
			if err != nil {
				t.Fatal(err)
			}
			norm := func() replay.Normalizer { n, _ := newNormalizer(e.CLI); return n }
			opts := promote.Options{Name: e.Capture, Dir: fixturesDir, Normalizer: norm,
				Source: "testdata/corpus/" + e.CLI + "/" + e.Capture + ".stdout.jsonl"}
			if update {
				if _, err := promote.Promote(fx, opts); err != nil {
					t.Fatal(err)
				}
			}
			dir := filepath.Join(fixturesDir, e.CLI, e.Capture)
			for i := 0; i < 2; i++ {
				tmp := t.TempDir()
				o := opts
				o.Dir = tmp
				got, err := promote.Promote(fx, o)
				if err != nil {
					t.Fatal(err)
				}
				compareTrees(t, dir, got)
			}
		})
	}
}

// sanitizeCorpusCapture sanitizes a corpus capture as evcap promote does,
// with fixed machine paths (so the result does not depend on the machine
// running the test), and fails when the scan still finds anything. The
// corpus runs kept everything under /tmp/realcli/runs/<cli>/<capture> (the
// run directory becomes <TMP>, its project <PROJECT>); the long-text
// scenario also plants /root/... and /tmp/... paths in the model's answer,
// which stand for a root user's home and temp files, as on the machines
// these fixtures are checked on.
func sanitizeCorpusCapture(t *testing.T, e corpusEntry, raw []byte) []byte {
	t.Helper()
	run := "/tmp/realcli/runs/" + e.CLI + "/" + e.Capture
	opts := sanitize.Options{Home: "/root", Project: run + "/project", Temp: []string{run, "/tmp"}}
	var out bytes.Buffer
	if _, err := sanitize.Sanitize(bytes.NewReader(raw), e.Capture, &out, opts); err != nil {
		t.Fatal(err)
	}
	findings, err := sanitize.Scan(bytes.NewReader(out.Bytes()), e.Capture, sanitize.ScanOptions{Home: opts.Home, Project: opts.Project, Temp: opts.Temp})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("after sanitizing: %s", f)
	}
	return out.Bytes()
}

// compareTrees fails unless both directories hold the same files with the
// same bytes.
func compareTrees(t *testing.T, want, got string) {
	t.Helper()
	wf, gf := treeFiles(t, want), treeFiles(t, got)
	if strings.Join(keys(wf), " ") != strings.Join(keys(gf), " ") {
		t.Fatalf("%s holds %v, a fresh promote writes %v (go test ./cmd/evcap -run TestCorpusFixtures -update)", want, keys(wf), keys(gf))
	}
	for name, data := range wf {
		if !bytes.Equal(data, gf[name]) {
			t.Errorf("%s/%s differs from a fresh promote (go test ./cmd/evcap -run TestCorpusFixtures -update)", want, name)
		}
	}
}

func treeFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestFixturesReplay replays every fixture in the repository through every
// mode and format against its goldens, and again with deltas re-split by
// 20 seeds.
func TestFixturesReplay(t *testing.T) {
	seeds := make([]uint64, 20)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	n := 0
	err := fixtures.Walk(os.DirFS(fixturesDir), ".", func(dir string, fx *fixtures.Fixture) error {
		n++
		t.Run(dir, func(t *testing.T) {
			if _, err := newNormalizer(fx.Provider); err != nil {
				t.Fatal(err)
			}
			norm := func() replay.Normalizer { n, _ := newNormalizer(fx.Provider); return n }
			full := filepath.Join(fixturesDir, dir)
			replay.Golden(t, full, replay.GoldenOptions{Normalizer: norm, Renderers: promote.Formats(), Legacy: promote.Legacy(),
				Seeds: seeds, RechunkRenderers: promote.RechunkFormats()})
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("replayed %d fixtures under %s, want the whole corpus (at least 20)", n, fixturesDir)
	}
}
