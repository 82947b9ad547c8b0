//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/bench/gen"
)

// rssScaling runs the evcap commands on a small and a large run with the
// same line lengths: a streaming tool's peak RSS must not grow with size.
func rssScaling(c config) error {
	fmt.Printf("## Peak RSS, %.0f MB vs %.0f MB (same line lengths, no long line)\n\n", mb(c.small), mb(c.large))
	fmt.Println("| command | small MiB | large MiB | large/small | large within 64 MiB + 3 × longest line |")
	fmt.Println("|---|---|---|---|---|")
	type files struct{ raw, capPath string }
	var fs []files
	var longest int
	for i, size := range []int64{c.small, c.large} {
		raw, st, err := generate(c.dir, fmt.Sprintf("rss%d.jsonl", i), gen.Options{Provider: "claude", Size: size, Seed: 3, SecretEvery: 40})
		if err != nil {
			return err
		}
		capPath, err := recordCapture(c, raw, fmt.Sprintf("rss%d.capture.jsonl", i))
		if err != nil {
			return err
		}
		fs = append(fs, files{raw, capPath})
		longest = max(longest, st.Longest)
	}
	// A capture's lines are longer than the run's (the envelope around
	// each), but by far less than the slack this leaves.
	bound := 64<<20 + 3*int64(longest)
	cmds := []struct {
		name string
		argv func(f files) []string
	}{
		{"evcap normalize", func(f files) []string { return []string{c.evcap, "normalize", f.raw} }},
		{"evcap sanitize", func(f files) []string { return []string{c.evcap, "sanitize", f.capPath, "-o", os.DevNull} }},
		{"evcap replay --mode native", func(f files) []string { return []string{c.evcap, "replay", f.capPath, "--mode", "native"} }},
		{"evcap scan", func(f files) []string { return []string{c.evcap, "scan", f.capPath} }},
		{"evcap record -- cat", func(f files) []string {
			return []string{c.evcap, "record", "--render", "none", "-o", filepath.Join(c.dir, "rssrec.jsonl"), "--", "cat", f.raw}
		}},
	}
	for _, cmd := range cmds {
		var rss [2]int64
		for i, f := range fs {
			s, err := measure(cmd.argv(f), "", "")
			if err != nil {
				return err
			}
			rss[i] = s.maxRSS
		}
		fmt.Printf("| %s | %.1f | %.1f | %.2f | %s (%.1f) |\n", cmd.name, mib(rss[0]), mib(rss[1]), float64(rss[1])/float64(rss[0]), yes(rss[1] <= bound), mib(bound))
	}
	fmt.Println()
	for _, f := range fs {
		os.Remove(f.raw)
		os.Remove(f.capPath)
	}
	return nil
}
