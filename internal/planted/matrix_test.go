package planted_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evcap/evcap/bundle"
	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/internal/planted"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/record"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

// Stages of the matrix, in the order a secret meets them.
const (
	stRaw        = "raw capture (sanity: must hold every secret)"
	stRecord     = "after record (LineRedactor, stderr, argv)"
	stSanitize   = "after sanitize"
	stGateMiss   = "sanitize left it and scan did not see it"
	stBundle     = "bundle written with it"
	stBundleRef  = "bundle refused (gate)"
	stPromote    = "fixture tree written with it"
	stPromoteRef = "promote refused (gate)"
	stWeak       = "weakened redactor left it"
	stWeakMiss   = "weakened redactor left it and scan did not see it"
)

type outcome struct {
	c      planted.Case
	stages map[string]bool
	err    error
}

var (
	matrixOnce sync.Once
	matrixRes  []outcome
	matrixErr  error
)

// runMatrix runs every case of the matrix once per test binary (both
// tests below read the same outcomes).
func runMatrix(t *testing.T) []outcome {
	t.Helper()
	matrixOnce.Do(func() {
		shapes, err := planted.LoadShapes(filepath.Join("..", "..", "testdata", "corpus"))
		if err != nil {
			matrixErr = err
			return
		}
		// The whole matrix takes minutes; under the race detector (the
		// README's test command) and with -short a fixed subset runs, and
		// EVCAP_PLANTED=full runs it all anyway.
		short := (testing.Short() || raceEnabled) && os.Getenv("EVCAP_PLANTED") != "full"
		cases := planted.Matrix(shapes, short)
		if raceEnabled && os.Getenv("EVCAP_PLANTED") != "full" {
			// The race detector makes each case about eight times slower:
			// a third of the subset keeps the package within go test's
			// default timeout on a loaded machine.
			var third []planted.Case
			for i, c := range cases {
				if i%3 == 0 {
					third = append(third, c)
				}
			}
			cases = third
		}
		dir := t.TempDir()
		start := time.Now()
		for i, c := range cases {
			matrixRes = append(matrixRes, runCase(t, filepath.Join(dir, fmt.Sprint(i)), c))
		}
		t.Logf("%d cases (%d kinds, %d placements, %d providers) in %v", len(cases), len(planted.Kinds()),
			len(planted.Placements()), len(planted.Providers()), time.Since(start).Round(time.Millisecond))
	})
	if matrixErr != nil {
		t.Fatal(matrixErr)
	}
	if len(matrixRes) < 50 {
		t.Fatalf("only %d cases ran", len(matrixRes))
	}
	return matrixRes
}

func newNormalizer(provider string) (event.Normalizer, error) {
	mk, ok := corpustest.Normalizers()[provider]
	if !ok {
		return nil, os.ErrNotExist
	}
	return mk(), nil
}

// secretFindings leaves out what is not about secrets (ids, this
// machine's paths), so that a finding counts only when it is a secret.
func secretFindings(fs []scan.Finding) int {
	n := 0
	for _, f := range fs {
		switch f.Rule {
		case scan.RuleVolatileID, redact.RulePathHome, redact.RulePathProject, redact.RulePathTemp, scan.RulePathOtherHome:
			continue
		}
		n++
	}
	return n
}

func runCase(t *testing.T, dir string, c planted.Case) (o outcome) {
	o = outcome{c: c, stages: map[string]bool{}}
	defer func() {
		if r := recover(); r != nil {
			o.err = fmt.Errorf("panic: %v", r)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		o.err = err
		return o
	}
	hold := 0
	if c.Placement == "early-flush" {
		hold = planted.SmallHold
	}
	oracle := planted.NewOracle(c.Core)

	// record: what evcap record writes, line by line.
	red, err := redact.New(redact.Options{})
	if err != nil {
		o.err = err
		return o
	}
	lr := sanitize.NewLineRedactor(red, sanitize.LineOptions{MaxHeld: hold})
	var rec bytes.Buffer
	emit := func(ls []sanitize.RedactedLine) {
		for _, l := range ls {
			rec.Write(l.Line)
			rec.WriteByte('\n')
		}
	}
	for _, l := range c.Stdout {
		emit(lr.Push(append([]byte(nil), l...)))
	}
	emit(lr.Flush())
	for _, l := range c.Stderr {
		out, _ := red.Text(l)
		rec.Write(out)
		rec.WriteByte('\n')
	}
	rec.WriteString(strings.Join(record.RedactArgv(c.Argv, red), " "))
	o.stages[stRecord] = oracle.Survives(rec.Bytes())

	// The capture as an unredacting recorder would write it.
	stdout, stderr := filepath.Join(dir, "stdout.jsonl"), filepath.Join(dir, "stderr.txt")
	os.WriteFile(stdout, append(bytes.Join(c.Stdout, []byte("\n")), '\n'), 0o644)
	os.WriteFile(stderr, append(bytes.Join(c.Stderr, []byte("\n")), '\n'), 0o644)
	raw := corpustest.Capture(t, corpustest.Recording{Native: stdout, Stderr: stderr,
		Begin:     capture.Start{EvcapVersion: "test", Provider: c.Provider, Argv: c.Argv, CLIName: c.Provider, OS: "linux", Arch: "amd64"},
		CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: corpustest.Clock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), 7*time.Millisecond),
		SetSession: true})
	o.stages[stRaw] = oracle.Survives(raw)

	sopts := sanitize.Options{Home: "/home/u", DefaultProject: "/srv/app", Temp: []string{"/tmp"}, MaxHeld: hold}
	gate, err := scan.New(scan.Options{Home: "/home/u", Temp: []string{"/tmp"}})
	if err != nil {
		o.err = err
		return o
	}

	// sanitize, and the gate on what it left.
	var clean bytes.Buffer
	if _, err := sanitize.Sanitize(bytes.NewReader(raw), c.Name(), &clean, sopts); err != nil {
		o.err = fmt.Errorf("sanitize: %w", err)
		return o
	}
	o.stages[stSanitize] = oracle.Survives(clean.Bytes())
	found, err := gate.Read(bytes.NewReader(clean.Bytes()), "capture.jsonl", scan.KindCapture)
	if err != nil {
		o.err = fmt.Errorf("scan: %w", err)
		return o
	}
	flagged := secretFindings(found) > 0
	o.stages[stGateMiss] = o.stages[stSanitize] && !flagged

	// bundle: refused, or written; if written, does it hold the secret?
	scratch, err := os.Create(filepath.Join(dir, "scratch.jsonl"))
	if err != nil {
		o.err = err
		return o
	}
	defer scratch.Close()
	b, err := bundle.Build(context.Background(), bytes.NewReader(raw), c.Name(), scratch,
		bundle.Options{EvcapVersion: "test", Sanitize: sopts, Scan: scan.Options{Home: "/home/u", Temp: []string{"/tmp"}}, Normalizer: newNormalizer})
	switch {
	case errors.Is(err, bundle.ErrLeak):
		o.stages[stBundleRef] = true
	case err != nil:
		o.err = fmt.Errorf("bundle: %w", err)
		return o
	default:
		var zb bytes.Buffer
		if err := b.WriteZip(&zb); err != nil {
			o.err = err
			return o
		}
		o.stages[stBundle] = oracle.SurvivesIn(zipEntries(zb.Bytes())...)
	}

	// promote, as evcap promote does it: refused when the gate flags the
	// sanitized capture or the fixture tree it writes.
	if flagged {
		o.stages[stPromoteRef] = true
	} else {
		files, refused, err := promoteAndScan(filepath.Join(dir, "fx"), clean.Bytes(), c.Provider, gate)
		if err != nil {
			o.err = fmt.Errorf("promote: %w", err)
			return o
		}
		o.stages[stPromoteRef] = refused
		o.stages[stPromote] = !refused && oracle.SurvivesIn(files...)
	}

	// A redactor with every rule turned off: the gate alone must see
	// every secret it leaves, in the capture and in the fixture tree.
	weak := sopts
	weak.Config = redact.Config{Disable: redact.RuleIDs()}
	var weakOut bytes.Buffer
	if _, err := sanitize.Sanitize(bytes.NewReader(raw), c.Name(), &weakOut, weak); err != nil {
		o.err = fmt.Errorf("weak sanitize: %w", err)
		return o
	}
	o.stages[stWeak] = oracle.Survives(weakOut.Bytes())
	wf, err := gate.Read(bytes.NewReader(weakOut.Bytes()), "capture.jsonl", scan.KindCapture)
	if err != nil {
		o.err = fmt.Errorf("weak scan: %w", err)
		return o
	}
	miss := o.stages[stWeak] && secretFindings(wf) == 0
	if !miss && o.stages[stWeak] {
		// The capture is flagged; the goldens derived from it must be too
		// (they are scanned on their own in a fixture tree).
		files, refused, err := promoteAndScan(filepath.Join(dir, "weakfx"), weakOut.Bytes(), c.Provider, gate)
		if err == nil && !refused && planted.NewOracle(c.Core).SurvivesIn(files...) {
			miss = true
		}
	}
	o.stages[stWeakMiss] = miss
	return o
}

// promoteAndScan promotes a sanitized capture into dir and scans the tree
// (goldens included). It returns the tree's files, whether the gate
// refused it, and an error.
func promoteAndScan(dir string, capture []byte, provider string, gate *scan.Scanner) ([][]byte, bool, error) {
	fx, err := replay.LoadCapture(bytes.NewReader(capture), "capture.jsonl")
	if err != nil {
		return nil, false, err
	}
	norm := func() replay.Normalizer { n, _ := newNormalizer(provider); return n }
	out, err := promote.Promote(fx, promote.Options{Name: "planted", Dir: dir, Normalizer: norm})
	if err != nil {
		return nil, false, err
	}
	var files [][]byte
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			files = append(files, b)
		}
		return nil
	})
	res, err := gate.Paths([]string{out})
	if err != nil {
		return files, false, err
	}
	return files, secretFindings(res.Findings) > 0, nil
}

func zipEntries(b []byte) [][]byte {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return [][]byte{b}
	}
	var out [][]byte
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			continue
		}
		d, _ := io.ReadAll(rc)
		rc.Close()
		out = append(out, d)
	}
	return out
}

// table counts the cases at a stage per kind or placement.
func table(res []outcome, stage string, by func(planted.Case) string) (map[string]int, map[string]int) {
	hit, all := map[string]int{}, map[string]int{}
	for _, o := range res {
		k := by(o.c)
		all[k]++
		if o.stages[stage] {
			hit[k]++
		}
	}
	return hit, all
}

func report(t *testing.T, res []outcome, stage string) int {
	t.Helper()
	total := 0
	for _, o := range res {
		if o.stages[stage] {
			total++
		}
	}
	if total == 0 {
		return 0
	}
	for _, axis := range []struct {
		name string
		by   func(planted.Case) string
	}{{"kind", func(c planted.Case) string { return c.Kind }}, {"placement", func(c planted.Case) string { return c.Placement }},
		{"provider", func(c planted.Case) string { return c.Provider }}} {
		hit, all := table(res, stage, axis.by)
		var keys []string
		for k := range hit {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "  %-26s %4d of %4d\n", k, hit[k], all[k])
		}
		t.Logf("%s: %d of %d cases, by %s:\n%s", stage, total, len(res), axis.name, b.String())
	}
	return total
}

func errorsOf(t *testing.T, res []outcome) {
	t.Helper()
	n := 0
	for _, o := range res {
		if o.err != nil {
			n++
			if n <= 10 {
				t.Errorf("%s: %v", o.c.Name(), o.err)
			}
		}
	}
	if n > 10 {
		t.Errorf("… %d cases failed to run in all", n)
	}
}

// TestPlantedMatrixGate: the gate is shown to work on its own. Every
// secret a redactor with all its rules off leaves is reported by scan (in
// the capture, and in the goldens of the fixture promoted from it); every
// secret the real redactor leaves is reported by scan; so no bundle is
// written and no fixture tree is promoted with a secret inside, whatever
// the redactor does.
func TestPlantedMatrixGate(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	res := runMatrix(t)
	errorsOf(t, res)
	raw := 0
	for _, o := range res {
		if o.err == nil && !o.stages[stRaw] {
			raw++
			if raw <= 5 {
				t.Errorf("%s: the raw capture does not hold the planted secret: the generator or oracle is broken", o.c.Name())
			}
		}
	}
	weak := report(t, res, stWeak)
	if weak*10 < len(res)*9 {
		t.Errorf("the weakened redactor left only %d of %d secrets: it is not weak, so the gate was not tested", weak, len(res))
	}
	for _, st := range []string{stWeakMiss, stGateMiss, stBundle, stPromote} {
		if n := report(t, res, st); n > 0 {
			var names []string
			for _, o := range res {
				if o.stages[st] && len(names) < 12 {
					names = append(names, o.c.Name())
				}
			}
			t.Errorf("%s: %d of %d cases, e.g. %s", st, n, len(res), strings.Join(names, ", "))
		}
	}
	report(t, res, stBundleRef)
	report(t, res, stPromoteRef)
}

// TestPlantedMatrixRedaction: the redactor itself (record's line
// redaction and sanitize) leaves no planted secret. Counts per kind,
// placement and provider are logged for each stage that leaks.
func TestPlantedMatrixRedaction(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	res := runMatrix(t)
	for _, st := range []string{stRecord, stSanitize} {
		if n := report(t, res, st); n > 0 {
			var names []string
			for _, o := range res {
				if o.stages[st] && len(names) < 12 {
					names = append(names, o.c.Name())
				}
			}
			t.Errorf("%s: %d of %d cases survive, e.g. %s", st, n, len(res), strings.Join(names, ", "))
		}
	}
}
