// Command gencorpus writes one generated agent run (bench/gen) to a file or
// stdout, for benchmarking other tools on the same bytes evbench uses.
//
//	go run ./bench/cmd/gencorpus -provider claude -size 200MB -big-line 10MB -o run.jsonl
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evcap/evcap/bench/gen"
)

func main() {
	var (
		o    gen.Options
		size string
		big  string
		out  string
	)
	flag.StringVar(&o.Provider, "provider", "claude", "one of "+strings.Join(gen.Providers(), ", "))
	flag.StringVar(&size, "size", "10MB", "size to write (KB, MB, GB)")
	flag.StringVar(&big, "big-line", "0", "length of one long line in the middle (0: none)")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed")
	flag.IntVar(&o.SecretEvery, "secret-every", 40, "plant a fake secret every N turns (0: none)")
	flag.StringVar(&out, "o", "-", "output file (- for stdout)")
	flag.Parse()
	var err error
	if o.Size, err = parseSize(size); err != nil {
		fail(err)
	}
	b, err := parseSize(big)
	if err != nil {
		fail(err)
	}
	o.BigLine = int(b)
	var w io.Writer = os.Stdout
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	st, err := gen.Write(bw, o)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "gencorpus: %s, %d bytes, %d lines, longest %d, %d secrets planted\n", o.Provider, st.Bytes, st.Lines, st.Longest, len(st.Planted))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gencorpus:", err)
	os.Exit(1)
}

func parseSize(s string) (int64, error) {
	u := strings.ToUpper(s)
	mult := int64(1)
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
