package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replay/replaytest"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

// fixturesDir is the repository's fixture tree.
const fixturesDir = "../../fixtures/testdata"

// corpusCapture records a raw corpus stdout file the way an integration
// using package capture would, with a fixed clock and capture id, so the
// capture is the same on every run.
func corpusCapture(t *testing.T, e corpustest.Entry) []byte {
	t.Helper()
	return corpustest.Capture(t, corpustest.Recording{
		Native:    e.Stdout(t),
		Begin:     capture.Start{EvcapVersion: "corpus", Provider: e.CLI, OS: "linux", Arch: "amd64", CLIName: e.CLI, CLIVersion: e.NPMVersion},
		CaptureID: "01KB8J6Z0000000000000CRPS0",
		Now:       corpustest.Clock(time.Date(2026, 11, 29, 19, 32, 5, 0, time.UTC), 7*time.Millisecond),
	})
}

// TestCorpusFixtures promotes every corpus capture and compares the result
// with fixtures/testdata/<provider>/<capture> byte for byte; with -update it
// writes them. Promoting is deterministic, so a second promote run changes
// nothing (the test promotes twice to prove it).
func TestCorpusFixtures(t *testing.T) {
	corpustest.Heavy(t)
	update := flag.Lookup("update") != nil && flag.Lookup("update").Value.String() == "true"
	for _, e := range corpustest.Manifest(t) {
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
func sanitizeCorpusCapture(t *testing.T, e corpustest.Entry, raw []byte) []byte {
	t.Helper()
	run := "/tmp/realcli/runs/" + e.CLI + "/" + e.Capture
	opts := sanitize.Options{Home: "/root", Project: run + "/project", Temp: []string{run, "/tmp"}}
	var out bytes.Buffer
	if _, err := sanitize.Sanitize(bytes.NewReader(raw), e.Capture, &out, opts); err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(scan.Options{Home: opts.Home, Project: opts.Project, Temp: opts.Temp})
	if err != nil {
		t.Fatal(err)
	}
	findings, err := sc.Read(bytes.NewReader(out.Bytes()), e.Capture, scan.KindCapture)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("after sanitizing: %+v", f)
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
	corpustest.Heavy(t)
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
			replaytest.Golden(t, full, replaytest.GoldenOptions{Normalizer: norm, Renderers: promote.Formats(), Legacy: promote.Legacy(),
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
