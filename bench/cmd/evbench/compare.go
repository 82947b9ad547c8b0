//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evcap/evcap/bench/gen"
	"github.com/tidwall/gjson"
)

// tool is one command compared on the main run.
type tool struct {
	name string
	argv []string
	in   string // stdin file
	out  string // stdout file ("" = /dev/null)
	env  []string
}

// generate writes a run to dir/name and returns its stats.
func generate(dir, name string, o gen.Options) (string, gen.Stats, error) {
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return "", gen.Stats{}, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	st, err := gen.Write(bw, o)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, st, err
}

// recordCapture records raw with evcap record --stdin (no redaction, so
// sanitize has the secrets to find) and returns the capture's path.
func recordCapture(c config, raw, name string) (string, error) {
	capPath := filepath.Join(c.dir, name)
	s, err := measure([]string{c.evcap, "record", "--stdin", "--no-redact", "--render", "none", "-o", capPath}, raw, "")
	if err != nil {
		return "", err
	}
	if s.exit != 0 {
		return "", fmt.Errorf("evcap record --stdin %s: exit %d", raw, s.exit)
	}
	return capPath, nil
}

func compare(c config) error {
	var raw string
	var st gen.Stats
	var err error
	if c.corpusRun {
		raw, st, err = repeatCorpus(c.dir, "claude.jsonl", c.size)
	} else {
		raw, st, err = generate(c.dir, "claude.jsonl", gen.Options{Provider: "claude", Size: c.size, Seed: 1, BigLine: c.bigLine, SecretEvery: 40, Text: c.text})
	}
	if err != nil {
		return err
	}
	capPath, err := recordCapture(c, raw, "claude.capture.jsonl")
	if err != nil {
		return err
	}
	ci, _ := os.Stat(capPath)
	what := "Claude partial-message stream"
	if c.text != "" && c.text != "prose" {
		what += " (" + c.text + " text)"
	}
	if c.corpusRun {
		what = "real Claude partial-message outputs (" + strings.Join(corpusRunFiles, ", ") + ") repeated"
	}
	fmt.Printf("## Main run: %s, %.1f MB, %d lines, longest line %.1f MB, %d secrets planted; capture %.1f MB\n\n",
		what, mb(st.Bytes), st.Lines, mb(int64(st.Longest)), len(st.Planted), mb(ci.Size()))

	tools := []tool{
		{name: "cat", argv: []string{"cat", raw}},
		{name: "jq -c .", argv: []string{"jq", "-c", ".", raw}},
		// sanitize, replay and scan read the capture: their targets are
		// ratios to a tool reading the same file.
		{name: "jq -c . (capture)", argv: []string{"jq", "-c", ".", capPath}},
		{name: "evcap scan", argv: []string{c.evcap, "scan", capPath}},
		{name: "evcap normalize", argv: []string{c.evcap, "normalize", raw}},
		{name: "evcap replay --mode native", argv: []string{c.evcap, "replay", capPath, "--mode", "native"}},
		{name: "evcap sanitize", argv: []string{c.evcap, "sanitize", capPath, "-o", os.DevNull}},
		{name: "evcap record -- cat", argv: []string{c.evcap, "record", "--render", "none", "-o", filepath.Join(c.dir, "rec.jsonl"), "--", "cat", raw}},
		floorTool("floor: lines (capture)", "lines", capPath),
		floorTool("floor: valid", "valid", raw),
		floorTool("floor: valid (capture)", "valid", capPath),
		floorTool("floor: keywords (capture)", "keywords", capPath),
		floorTool("floor: write (capture)", "write", capPath),
		floorTool("floor: write", "write", raw),
	}
	if c.gitleaks != "" {
		tools = append(tools, tool{name: "gitleaks stdin (capture)", argv: []string{c.gitleaks, "stdin", "--no-banner", "--log-level", "error", "--exit-code", "0", "--redact"}, in: capPath})
	} else {
		fmt.Println("gitleaks not found: its column is left out (go install github.com/zricethezav/gitleaks/v8@v8.21.2)")
	}
	samples := map[string][]sample{}
	var dropped []string
	for r := 0; r < c.rounds; r++ {
		for i := range tools {
			t := tools[(i+r)%len(tools)]
			s, err := measure(t.argv, t.in, t.out, t.env...)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			if t.name == "evcap record -- cat" {
				dropped = append(dropped, droppedBytes(filepath.Join(c.dir, "rec.jsonl")))
			}
			samples[t.name] = append(samples[t.name], s)
			fmt.Fprintf(os.Stderr, "round %d: %-28s %7.2fs  %7.1f MB/s  exit %d\n", r+1, t.name, s.wall.Seconds(), mb(st.Bytes)/s.wall.Seconds(), s.exit)
		}
	}
	fmt.Println("MB/s and lines/s are of the raw run's bytes and lines for every tool, also those that read its capture (sanitize, replay, scan, the \"(capture)\" rows), which holds the same lines: so a ratio of two tools reading the same file is the ratio of their rates.")
	fmt.Printf("Each tool ran %d times, alternating; the table shows every round's MB/s and the median's CPU and the largest peak RSS.\n\n", c.rounds)
	fmt.Println("Page faults and the kernel's CPU (sys) are the median run's: each fault is a fresh 4 KiB page of memory (or of the binary) touched for the first time, a cost that buffer reuse avoids.")
	fmt.Println()
	fmt.Println("| tool | MB/s per round | lines/s (median) | CPU s (median) | sys s | page faults | peak RSS MiB | exit |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	rate := map[string]float64{}
	for _, t := range tools {
		ss := samples[t.name]
		m := median(ss)
		var per []string
		for _, s := range ss {
			per = append(per, fmt.Sprintf("%.1f", mb(st.Bytes)/s.wall.Seconds()))
		}
		rate[t.name] = mb(st.Bytes) / m.wall.Seconds()
		fmt.Printf("| %s | %s | %.0f | %.2f | %.2f | %d | %.1f | %d |\n", t.name, strings.Join(per, ", "),
			float64(st.Lines)/m.wall.Seconds(), m.cpu.Seconds(), m.sys.Seconds(), m.faults, mib(m.maxRSS), m.exit)
	}
	fmt.Printf("\nevcap record -- cat: bytes of the child's stdout not in the capture (gap records), per round: %s\n\n", strings.Join(dropped, ", "))
	fmt.Println("| ratio (median MB/s) | measured | target | met |")
	fmt.Println("|---|---|---|---|")
	ratio := func(a, b string, target float64) {
		if rate[a] == 0 || rate[b] == 0 {
			return
		}
		r := rate[a] / rate[b]
		fmt.Printf("| %s / %s | %.1f× | ≥ %g× | %s |\n", a, b, r, target, yes(r >= target))
	}
	ratio("evcap sanitize", "jq -c . (capture)", 8)
	ratio("evcap normalize", "jq -c .", 15)
	ratio("evcap replay --mode native", "jq -c . (capture)", 15)
	ratio("evcap record -- cat", "jq -c .", 3)
	ratio("evcap scan", "gitleaks stdin (capture)", 20)
	fmt.Println()
	fmt.Println("The floor rows are evbench itself doing only part of a command's work with evcap's own pieces (bench/cmd/evbench/floor.go): reading lines, walking and decoding every string, and searching every decoded byte for the built-in rules' keywords with a plain case-folding DFA. Every redacting command does at least that much, so the floor's ratio is about the most such a command can reach on one core with these pieces; a faster walker or keyword search would raise it.")
	fmt.Println()
	fmt.Println("| command | floor | floor's ratio | command's ratio | command's time / floor's |")
	fmt.Println("|---|---|---|---|---|")
	ceiling := func(cmd, fl, base string) {
		if rate[cmd] == 0 || rate[fl] == 0 || rate[base] == 0 {
			return
		}
		fmt.Printf("| %s | %s | %.1f× %s | %.1f× | %.1f |\n", cmd, fl, rate[fl]/rate[base], base, rate[cmd]/rate[base], rate[fl]/rate[cmd])
	}
	ceiling("evcap sanitize", "floor: write (capture)", "jq -c . (capture)")
	ceiling("evcap record -- cat", "floor: write", "jq -c .")
	ceiling("evcap scan", "floor: keywords (capture)", "gitleaks stdin (capture)")
	limit := 64<<20 + 3*int64(st.Longest)
	fmt.Printf("\nPeak RSS bound: 64 MiB + 3 × longest line = %.1f MiB.\n\n", mib(limit))
	fmt.Println("| tool | peak RSS MiB | within bound |")
	fmt.Println("|---|---|---|")
	for _, t := range tools {
		if strings.HasPrefix(t.name, "evcap") {
			m := median(samples[t.name])
			fmt.Printf("| %s | %.1f | %s |\n", t.name, mib(m.maxRSS), yes(m.maxRSS <= limit))
		}
	}
	fmt.Println()
	return providers(c)
}

// droppedBytes reads capture.end's droppedBytes from the last line of a
// capture ("?" when it cannot). Only the file's tail is read: captures
// here are hundreds of MB, and capture.end is a short last line.
func droppedBytes(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "?"
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "?"
	}
	const tail = 64 << 10
	off := max(st.Size()-tail, 0)
	data := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(data, off); err != nil && err != io.EOF {
		return "?"
	}
	data = bytes.TrimRight(data, "\n")
	last := data[bytes.LastIndexByte(data, '\n')+1:]
	if v := gjson.GetBytes(last, "payload.droppedBytes"); v.Exists() {
		return v.Raw
	}
	return "?"
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// providers compares evcap normalize with jq on each other provider's run.
func providers(c config) error {
	size := max(c.size/4, 1e6)
	fmt.Printf("## Normalize per provider (%.0f MB runs, no long line)\n\n", mb(size))
	fmt.Println("| provider | lines | jq -c . MB/s | evcap normalize MB/s | ratio |")
	fmt.Println("|---|---|---|---|---|")
	for _, p := range gen.Providers() {
		raw, st, err := generate(c.dir, p+".small.jsonl", gen.Options{Provider: p, Size: size, Seed: 2, SecretEvery: 40})
		if err != nil {
			return err
		}
		var jq, norm []sample
		for r := 0; r < c.rounds; r++ {
			j, err := measure([]string{"jq", "-c", ".", raw}, "", "")
			if err != nil {
				return err
			}
			n, err := measure([]string{c.evcap, "normalize", raw}, "", "")
			if err != nil {
				return err
			}
			jq, norm = append(jq, j), append(norm, n)
		}
		jr, nr := mb(st.Bytes)/median(jq).wall.Seconds(), mb(st.Bytes)/median(norm).wall.Seconds()
		fmt.Printf("| %s | %d | %.1f | %.1f | %.1f× |\n", p, st.Lines, jr, nr, nr/jr)
		os.Remove(raw)
	}
	fmt.Println()
	return nil
}
