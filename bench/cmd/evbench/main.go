//go:build unix

// Command evbench measures evcap against cat, jq and gitleaks on generated
// agent output, in one invocation and alternating the tools, so every goal
// is a ratio of two figures taken minutes apart on the same machine.
//
// It generates the runs with bench/gen, records one (evcap record --stdin)
// to get a capture for sanitize and replay, then for each round runs every
// tool on the same file in a rotated order, and prints MB/s, lines/s, CPU
// and peak RSS (from wait4's rusage) per tool with the median of the
// rounds, the ratios the issue sets as targets, peak RSS for a small and a
// large file, and record's added latency for a child that writes one line
// per millisecond.
//
// It is not a test: nothing here fails on a slow machine. Run it with
// bench/run.sh or go run ./bench/cmd/evbench.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/evcap/evcap/bench/gen"
)

type config struct {
	evcap    string
	dir      string
	size     int64
	bigLine  int
	rounds   int
	small    int64
	large    int64
	ticks    int
	gitleaks string
	skipRSS  bool
	// corpusRun builds the main run from the real partial-message
	// captures of testdata/corpus instead of the generator (corpusrun.go).
	corpusRun bool
	// text is the generator's kind of streamed text for the main run
	// (gen.Options.Text).
	text string
}

func main() {
	if os.Getenv(childEnv) != "" {
		tickChild()
		return
	}
	if stage := os.Getenv(floorEnv); stage != "" {
		runFloor(stage)
		return
	}
	var c config
	var size, small, large, big string
	flag.StringVar(&c.evcap, "evcap", "", "evcap binary (default: go build ./cmd/evcap into the work directory)")
	flag.StringVar(&c.dir, "dir", "", "work directory for generated files (default: a new temp directory, removed at the end)")
	flag.StringVar(&size, "size", "64MB", "size of the main Claude run all tools are compared on")
	flag.StringVar(&big, "big-line", "10MB", "length of the one long line in the main run")
	flag.StringVar(&small, "small", "1MB", "small run for the RSS comparison")
	flag.StringVar(&large, "large", "200MB", "large run for the RSS comparison")
	flag.IntVar(&c.rounds, "rounds", 2, "rounds; each runs every tool once, in a rotated order")
	flag.IntVar(&c.ticks, "ticks", 3000, "lines the latency child writes, one per millisecond")
	flag.StringVar(&c.gitleaks, "gitleaks", "", "gitleaks binary (default: from PATH; skipped when missing)")
	flag.BoolVar(&c.skipRSS, "skip-rss", false, "skip the small/large RSS comparison")
	flag.BoolVar(&c.corpusRun, "corpus-run", false, "build the main run from the real Claude partial-message outputs in testdata/corpus, repeated to -size, instead of the generator")
	flag.StringVar(&c.text, "text", "prose", "what the main run's thinking and answer deltas say: "+strings.Join(gen.Texts(), ", ")+" (see bench/gen)")
	flag.Parse()
	var err error
	for _, p := range []struct {
		s string
		v *int64
	}{{size, &c.size}, {small, &c.small}, {large, &c.large}} {
		if *p.v, err = parseSize(p.s); err != nil {
			fatal(err)
		}
	}
	b, err := parseSize(big)
	if err != nil {
		fatal(err)
	}
	c.bigLine = int(b)
	if err := run(c); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "evbench:", err)
	os.Exit(1)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	u := strings.ToUpper(s)
	for _, sfx := range []struct {
		s string
		m int64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if strings.HasSuffix(u, sfx.s) {
			u, mult = strings.TrimSuffix(u, sfx.s), sfx.m
			break
		}
	}
	var n int64
	if _, err := fmt.Sscan(u, &n); err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	return n * mult, nil
}

func run(c config) error {
	if c.dir == "" {
		d, err := os.MkdirTemp("", "evbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		c.dir = d
	}
	if c.evcap == "" {
		c.evcap = filepath.Join(c.dir, "evcap")
		build := exec.Command("go", "build", "-o", c.evcap, "./cmd/evcap")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/evcap (run from the module root): %w", err)
		}
	}
	if c.gitleaks == "" {
		c.gitleaks, _ = exec.LookPath("gitleaks")
	}
	fmt.Printf("# evbench %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Printf("machine: %d CPUs (%s), %s, %s/%s\n\n", runtime.NumCPU(), cpuModel(), runtime.Version(), runtime.GOOS, runtime.GOARCH)

	if err := compare(c); err != nil {
		return err
	}
	if !c.skipRSS {
		if err := rssScaling(c); err != nil {
			return err
		}
	}
	return latency(c)
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
