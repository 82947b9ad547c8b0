// Command plantbench runs the planted-secret matrix (internal/planted)
// through evcap's gate (package scan), evcap sanitize, gitleaks and
// trufflehog, and prints recall per kind and per placement side by side,
// and the false positives of each on a look-alike set, as markdown.
//
// Each case is written as a raw (unredacted) capture file, so every tool
// reads the same bytes: gitleaks and trufflehog scan the directory of
// captures, evcap scan reads each capture, and evcap sanitize's recall is
// the share of cases whose sanitized capture no longer holds any
// 12-character piece of the secret (the matrix's oracle). A tool that is
// not given (-gitleaks, -trufflehog) is left out of the tables.
//
// Run it from the module root (bench/plant.sh does, after installing the
// tools from the Go module proxy).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/planted"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

func main() {
	var (
		dir        = flag.String("dir", "", "work directory (default: a new temporary directory)")
		gitleaks   = flag.String("gitleaks", "", "gitleaks binary")
		trufflehog = flag.String("trufflehog", "", "trufflehog binary")
		short      = flag.Bool("short", false, "the 1-in-12 subset the unit test runs with -short")
		corpus     = flag.String("corpus", "testdata/corpus", "the real corpus (line shapes)")
	)
	flag.Parse()
	if err := run(*dir, *gitleaks, *trufflehog, *corpus, *short, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "plantbench:", err)
		os.Exit(1)
	}
}

type tool struct {
	name string
	// hits maps a case file's base name to whether the tool flagged it.
	hits map[string]bool
}

func run(dir, gitleaks, trufflehog, corpus string, short bool, out io.Writer) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "plantbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	shapes, err := planted.LoadShapes(corpus)
	if err != nil {
		return err
	}
	cases := planted.Matrix(shapes, short)
	caseDir, lookDir := filepath.Join(dir, "cases"), filepath.Join(dir, "lookalike")
	for _, d := range []string{caseDir, lookDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = fmt.Sprintf("%04d-%s-%s-%s.jsonl", i, c.Kind, c.Placement, c.Provider)
		if err := os.WriteFile(filepath.Join(caseDir, names[i]), rawCapture(c.Provider, c.Stdout, c.Stderr, c.Argv), 0o644); err != nil {
			return err
		}
	}
	looks := lookalikes()
	lookNames := make([]string, len(looks))
	for i, l := range looks {
		lookNames[i] = fmt.Sprintf("%02d-%s.jsonl", i, l.name)
		if err := os.WriteFile(filepath.Join(lookDir, lookNames[i]), rawCapture("claude", [][]byte{[]byte(l.line)}, nil, []string{"claude", "-p", "hi"}), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "plantbench: %d cases, %d look-alikes in %s\n", len(cases), len(looks), dir)

	gate, err := scan.New(scan.Options{})
	if err != nil {
		return err
	}
	evScan := tool{name: "evcap scan", hits: map[string]bool{}}
	evSan := tool{name: "evcap sanitize", hits: map[string]bool{}}
	start := time.Now()
	for i, c := range cases {
		path := filepath.Join(caseDir, names[i])
		f, err := readWith(path, func(r io.Reader) ([]scan.Finding, error) { return gate.Read(r, names[i], scan.KindCapture) })
		if err != nil {
			return err
		}
		evScan.hits[names[i]] = secretFindings(f) > 0
		var clean bytes.Buffer
		opts := sanitize.Options{}
		if c.Placement == "early-flush" {
			opts.MaxHeld = planted.SmallHold
		}
		if _, err := readWith(path, func(r io.Reader) (sanitize.Report, error) { return sanitize.Sanitize(r, names[i], &clean, opts) }); err != nil {
			return err
		}
		evSan.hits[names[i]] = !planted.NewOracle(c.Core).Survives(clean.Bytes())
	}
	for _, n := range lookNames {
		path := filepath.Join(lookDir, n)
		f, err := readWith(path, func(r io.Reader) ([]scan.Finding, error) { return gate.Read(r, n, scan.KindCapture) })
		if err != nil {
			return err
		}
		evScan.hits[n] = secretFindings(f) > 0
		var clean bytes.Buffer
		if _, err := readWith(path, func(r io.Reader) (sanitize.Report, error) { return sanitize.Sanitize(r, n, &clean, sanitize.Options{}) }); err != nil {
			return err
		}
		before, err := readWith(path, func(r io.Reader) (int, error) { return countIn(r, []byte("[REDACTED:")) })
		if err != nil {
			return err
		}
		evSan.hits[n] = bytes.Count(clean.Bytes(), []byte("[REDACTED:")) > before
	}
	fmt.Fprintf(os.Stderr, "plantbench: evcap scan and sanitize took %v\n", time.Since(start).Round(time.Millisecond))
	tools := []tool{evScan, evSan}
	if gitleaks != "" {
		t, err := runGitleaks(gitleaks, dir, caseDir, lookDir)
		if err != nil {
			return err
		}
		tools = append(tools, t)
	}
	if trufflehog != "" {
		t, err := runTrufflehog(trufflehog, caseDir, lookDir)
		if err != nil {
			return err
		}
		tools = append(tools, t)
	}
	writeTables(out, cases, names, looks, lookNames, tools, short)
	return nil
}

// secretFindings counts the findings that are about secrets (not ids or
// machine paths).
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

// rawCapture writes a capture of the lines as an unredacting recorder
// would: capture.start with the argv, each stdout line, each stderr line.
func rawCapture(provider string, stdout, stderr [][]byte, argv []string) []byte {
	var buf bytes.Buffer
	t := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { t = t.Add(7 * time.Millisecond); return t }
	w := envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: now, FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: provider, Now: now})
	c.Begin(capture.Start{EvcapVersion: "bench", Provider: provider, Argv: argv, CLIName: provider, OS: "linux", Arch: "amd64"})
	for _, l := range stdout {
		c.Native(l)
	}
	for _, l := range stderr {
		c.Stderr(l)
	}
	code := 0
	c.Close(capture.End{ExitCode: &code, CleanEnd: true})
	return buf.Bytes()
}

func runGitleaks(bin, work, caseDir, lookDir string) (tool, error) {
	t := tool{name: "gitleaks", hits: map[string]bool{}}
	for _, d := range []string{caseDir, lookDir} {
		report := filepath.Join(work, "gitleaks-"+filepath.Base(d)+".json")
		cmd := exec.Command(bin, "dir", d, "--report-format", "json", "--report-path", report, "--no-banner", "--exit-code", "0", "--log-level", "error")
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return t, fmt.Errorf("gitleaks: %w", err)
		}
		fmt.Fprintf(os.Stderr, "plantbench: gitleaks on %s took %v\n", filepath.Base(d), time.Since(start).Round(time.Millisecond))
		data, err := os.ReadFile(report)
		if err != nil {
			return t, err
		}
		var found []struct {
			File string `json:"File"`
		}
		if err := json.Unmarshal(data, &found); err != nil {
			return t, fmt.Errorf("gitleaks report: %w", err)
		}
		for _, f := range found {
			t.hits[filepath.Base(f.File)] = true
		}
	}
	return t, nil
}

func runTrufflehog(bin, caseDir, lookDir string) (tool, error) {
	t := tool{name: "trufflehog", hits: map[string]bool{}}
	for _, d := range []string{caseDir, lookDir} {
		cmd := exec.Command(bin, "filesystem", d, "--json", "--no-verification", "--no-update", "--log-level=-1")
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return t, fmt.Errorf("trufflehog: %w", err)
		}
		fmt.Fprintf(os.Stderr, "plantbench: trufflehog on %s took %v\n", filepath.Base(d), time.Since(start).Round(time.Millisecond))
		for _, l := range bytes.Split(stdout.Bytes(), []byte("\n")) {
			var r struct {
				SourceMetadata struct {
					Data struct {
						Filesystem struct {
							File string `json:"file"`
						} `json:"Filesystem"`
					} `json:"Data"`
				} `json:"SourceMetadata"`
			}
			if json.Unmarshal(l, &r) == nil && r.SourceMetadata.Data.Filesystem.File != "" {
				t.hits[filepath.Base(r.SourceMetadata.Data.Filesystem.File)] = true
			}
		}
	}
	return t, nil
}

func writeTables(out io.Writer, cases []planted.Case, names []string, looks []lookalike, lookNames []string, tools []tool, short bool) {
	set := "the whole matrix"
	if short {
		set = "the -short subset"
	}
	fmt.Fprintf(out, "Recall on %s: %d cases (%d kinds × %d placements × 4 providers' real line shapes, cells a provider does not have left out). A case counts for a tool when it flagged the case's capture (evcap scan: a secret finding; gitleaks, trufflehog: any finding) or, for evcap sanitize, when no 12-character piece of the secret is left in the sanitized capture.\n\n",
		set, len(cases), len(planted.Kinds()), len(planted.Placements()))
	for _, axis := range []struct {
		name string
		key  func(planted.Case) string
	}{{"kind", func(c planted.Case) string { return c.Kind }}, {"placement", func(c planted.Case) string { return c.Placement }}} {
		rows := map[string][]int{}
		count := map[string]int{}
		var keys []string
		for i, c := range cases {
			k := axis.key(c)
			if _, ok := rows[k]; !ok {
				rows[k] = make([]int, len(tools))
				keys = append(keys, k)
			}
			count[k]++
			for ti, t := range tools {
				if t.hits[names[i]] {
					rows[k][ti]++
				}
			}
		}
		if axis.name == "placement" {
			sort.Strings(keys)
		}
		fmt.Fprintf(out, "| %s | cases |", axis.name)
		for _, t := range tools {
			fmt.Fprintf(out, " %s |", t.name)
		}
		fmt.Fprintf(out, "\n|---|---:|%s\n", strings.Repeat("---:|", len(tools)))
		totals := make([]int, len(tools))
		for _, k := range keys {
			fmt.Fprintf(out, "| %s | %d |", k, count[k])
			for ti := range tools {
				fmt.Fprintf(out, " %s |", pct(rows[k][ti], count[k]))
				totals[ti] += rows[k][ti]
			}
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "| **all** | %d |", len(cases))
		for ti := range tools {
			fmt.Fprintf(out, " **%s** |", pct(totals[ti], len(cases)))
		}
		fmt.Fprint(out, "\n\n")
	}
	fmt.Fprintf(out, "False positives on the look-alike set (%d captures of one line each that hold no secret; a tool flags it, or for sanitize, writes a [REDACTED:…] token):\n\n", len(looks))
	fmt.Fprint(out, "| look-alike |")
	for _, t := range tools {
		fmt.Fprintf(out, " %s |", t.name)
	}
	fmt.Fprintf(out, "\n|---|%s\n", strings.Repeat("---|", len(tools)))
	totals := make([]int, len(tools))
	for i, l := range looks {
		fmt.Fprintf(out, "| %s |", l.name)
		for ti, t := range tools {
			mark := ""
			if t.hits[lookNames[i]] {
				mark = "FP"
				totals[ti]++
			}
			fmt.Fprintf(out, " %s |", mark)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprint(out, "| **total** |")
	for ti := range tools {
		fmt.Fprintf(out, " **%d** |", totals[ti])
	}
	fmt.Fprintln(out)
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.0f %%)", n, of, 100*float64(n)/float64(of))
}

// readWith streams the file at path into read (a case capture is read from
// disk each time it is needed, never held whole) and closes it.
func readWith[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}

// countIn counts the occurrences of sub in what r gives, reading it in
// chunks that overlap by len(sub)-1 bytes so none is missed at a seam.
func countIn(r io.Reader, sub []byte) (int, error) {
	buf := make([]byte, 0, 64<<10+len(sub))
	n := 0
	for {
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		n += bytes.Count(buf, sub)
		if keep := len(sub) - 1; len(buf) > keep {
			copy(buf, buf[len(buf)-keep:])
			buf = buf[:keep]
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
