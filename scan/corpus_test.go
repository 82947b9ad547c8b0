package scan_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

// corpusRun is one real CLI run of the corpus as a capture, with the paths
// of the machine it was recorded on (each run had its own HOME, project
// and TMPDIR under a run directory; the CLIs lived under /tmp/realcli).
type corpusRun struct {
	name          string
	capture       []byte
	home, project string
	temp          []string
}

func corpusRuns(t testing.TB) []corpusRun {
	t.Helper()
	var out []corpusRun
	for _, e := range corpustest.Manifest(t) {
		stdout := e.Stdout(t)
		if _, err := os.Stat(stdout); err != nil {
			continue
		}
		run := "/tmp/realcli/runs/" + e.Name()
		c := corpustest.Capture(t, corpustest.Recording{
			Native: stdout, Stderr: e.Stderr(t),
			Begin:     capture.Start{EvcapVersion: "test", Provider: e.CLI, Argv: e.Argv, CLIName: e.CLI, OS: "linux", Arch: "amd64"},
			CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: corpustest.Clock(time.Date(2026, 11, 29, 19, 21, 46, 0, time.UTC), 13*time.Millisecond),
			SetSession: true, ExitCode: e.ExitCode,
		})
		out = append(out, corpusRun{name: e.Name(), capture: c, home: run + "/home", project: run + "/project",
			temp: []string{run + "/tmp", "/tmp/realcli"}})
	}
	if len(out) < 20 {
		t.Fatalf("corpus: %d runs, expected the whole corpus", len(out))
	}
	return out
}

// TestCorpusSanitizedIsClean: every real corpus capture, once sanitized,
// passes the gate (no false positive on real non-secret text), and the
// same capture before sanitizing does not (the gate sees what sanitize
// changes: volatile ids and machine paths at least).
func TestCorpusSanitizedIsClean(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	for _, r := range corpusRuns(t) {
		t.Run(r.name, func(t *testing.T) {
			sc, err := scan.New(scan.Options{Home: r.home, Temp: r.temp})
			if err != nil {
				t.Fatal(err)
			}
			before, err := sc.Read(bytes.NewReader(r.capture), r.name, scan.KindCapture)
			if err != nil {
				t.Fatal(err)
			}
			if len(before) == 0 {
				t.Errorf("the unsanitized capture passed the gate")
			}
			var out bytes.Buffer
			if _, err := sanitize.Sanitize(bytes.NewReader(r.capture), r.name, &out,
				sanitize.Options{Home: r.home, DefaultProject: r.project, Temp: r.temp}); err != nil {
				t.Fatal(err)
			}
			after, err := sc.Read(bytes.NewReader(out.Bytes()), r.name, scan.KindCapture)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range after {
				t.Errorf("false positive after sanitize: %v", f)
			}
		})
	}
}

// TestCheckedInFixturesAreClean scans the repository's own fixture tree,
// goldens included.
func TestCheckedInFixturesAreClean(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "fixtures", "testdata")
	res, err := sc.Paths([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	goldens := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".golden") {
			goldens++
		}
		return nil
	})
	if goldens == 0 || res.Files < goldens {
		t.Fatalf("read %d files, the tree has %d goldens: goldens were not scanned", res.Files, goldens)
	}
	for _, f := range res.Findings {
		t.Errorf("checked-in fixture: %v", f)
	}
}

// TestFastLineCorpus: the one-pass walk gives what the gjson walk gives,
// line by line, on the real corpus captures (every fourth under the race
// detector), as captures and as files of lines.
func TestFastLineCorpus(t *testing.T) {
	every := 1
	if scan.RaceOn {
		every = 4
	}
	fast := 0
	for i, r := range corpusRuns(t) {
		if i%every != 0 {
			continue
		}
		fast += scan.SameLines(t, scan.Options{Home: r.home, Project: r.project, Temp: r.temp}, r.name, r.capture, scan.KindCapture)
		fast += scan.SameLines(t, scan.Options{}, r.name, r.capture, scan.KindFile)
	}
	if fast < 500 {
		t.Fatalf("only %d corpus lines took the one-pass walk", fast)
	}
	t.Logf("%d corpus lines compared", fast)
}
