//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/bench/gen"
)

// corpusRunFiles are the real Claude Code outputs (claude -p
// --output-format stream-json --verbose --include-partial-messages, see
// testdata/corpus) that -corpus-run repeats: many deltas of a few words,
// prose about code, no long line. The generator's run has one 10.5 MB
// line, on which jq is slow and evcap is not; this run shows the cost per
// delta instead.
var corpusRunFiles = []string{"long-text-partial", "tools-partial"}

// repeatCorpus writes the corpusRunFiles one after the other, again and
// again, until the run holds at least size bytes, and returns its path
// and stats (nothing is planted: the corpus holds no secrets).
func repeatCorpus(dir, name string, size int64) (string, gen.Stats, error) {
	var one []byte
	for _, f := range corpusRunFiles {
		b, err := os.ReadFile(filepath.Join("testdata", "corpus", "claude", f+".stdout.jsonl"))
		if err != nil {
			return "", gen.Stats{}, fmt.Errorf("corpus run (run evbench from the repository root): %w", err)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		one = append(one, b...)
	}
	var st gen.Stats
	for _, l := range bytes.SplitAfter(one, []byte("\n")) {
		st.Longest = max(st.Longest, len(bytes.TrimSuffix(l, []byte("\n"))))
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return "", gen.Stats{}, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	lines := int64(bytes.Count(one, []byte("\n")))
	for st.Bytes < size && err == nil {
		_, err = bw.Write(one)
		st.Bytes += int64(len(one))
		st.Lines += lines
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, st, err
}
