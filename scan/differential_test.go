package scan_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/internal/planted"
	"github.com/evcap/evcap/scan"
)

// The differential tests: the prefilter may only skip work, never change
// what is found. Each input is scanned with the prefilter and without it
// (every rule on every text), and the findings must be equal byte for
// byte.

func findingsText(fs []scan.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s|%d|%d|%s|%s|%s\n", f.File, f.Line, f.Sequence, f.Rule, f.Pointer, f.Decoded)
	}
	return b.String()
}

// differ scans one input both ways and fails when the findings differ; it
// returns how many there were.
func differ(t testing.TB, opts scan.Options, name string, input []byte, kind scan.Kind) int {
	t.Helper()
	on, err := scan.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	off, err := scan.NewWithoutPrefilter(opts)
	if err != nil {
		t.Fatal(err)
	}
	n := differWith(t, on, off, name, input, kind)
	chunked, err := scan.NewWithFoldChunk(opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	differWith(t, chunked, off, name+" (small fold chunks)", input, kind)
	return n
}

func differWith(t testing.TB, on, off *scan.Scanner, name string, input []byte, kind scan.Kind) int {
	t.Helper()
	a, errA := on.Read(bytes.NewReader(input), name, kind)
	b, errB := off.Read(bytes.NewReader(input), name, kind)
	if fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Fatalf("%s: errors differ: prefilter %v, all rules %v", name, errA, errB)
	}
	if x, y := findingsText(a), findingsText(b); x != y {
		t.Fatalf("%s: findings differ\nwith the prefilter:\n%s\nwith every rule:\n%s", name, x, y)
	}
	return len(a)
}

// TestPrefilterDifferential is the light differential, run everywhere
// (under -race too): a few corpus captures, planted cases and random
// records. The heavy tests below run the whole of each.
func TestPrefilterDifferential(t *testing.T) {
	if scan.RaceOn {
		differCorpus(t, 8)
		differPlanted(t, 30)
		differRandom(t, 1)
		return
	}
	differCorpus(t, 4)
	differPlanted(t, 25)
	differRandom(t, 4)
}

// TestPrefilterDifferentialCorpus: every real corpus capture, unsanitized.
func TestPrefilterDifferentialCorpus(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	differCorpus(t, 1)
}

// TestPrefilterDifferentialPlanted: the planted-secret matrix's captures
// (its short subset), as an unredacting recorder writes them.
func TestPrefilterDifferentialPlanted(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	differPlanted(t, 1)
}

// TestPrefilterDifferentialGenerated: seeded bench/gen runs of every
// provider, with planted secrets, read as files of lines.
func TestPrefilterDifferentialGenerated(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	total := 0
	for i, p := range gen.Providers() {
		var buf bytes.Buffer
		if _, err := gen.Write(&buf, gen.Options{Provider: p, Size: 400 << 10, Seed: uint64(i + 1), SecretEvery: 3}); err != nil {
			t.Fatal(err)
		}
		total += differ(t, scan.Options{Home: "/home/dev"}, p, buf.Bytes(), scan.KindFile)
	}
	if total == 0 {
		t.Fatal("no finding in the generated runs")
	}
	t.Logf("%d findings, equal with and without the prefilter", total)
}

// TestPrefilterDifferentialRandom: records built from generated matches
// of every rule, in the encodings the gate decodes, cut into deltas.
func TestPrefilterDifferentialRandom(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	differRandom(t, 40)
}

// differCorpus compares every every-th corpus capture, as a capture and
// as a file of lines.
func differCorpus(t *testing.T, every int) {
	total := 0
	for i, r := range corpusRuns(t) {
		if i%every != 0 {
			continue
		}
		total += differ(t, scan.Options{Home: r.home, Project: r.project, Temp: r.temp}, r.name, r.capture, scan.KindCapture)
		total += differ(t, scan.Options{}, r.name, r.capture, scan.KindFile)
	}
	if total == 0 {
		t.Fatal("the corpus captures gave no finding at all: the comparison compared nothing")
	}
	t.Logf("corpus: %d findings, equal with and without the prefilter", total)
}

// differPlanted compares every every-th case of the matrix's short subset.
func differPlanted(t *testing.T, every int) {
	shapes, err := planted.LoadShapes(filepath.Join("..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	total, cases := 0, 0
	for i, c := range planted.Matrix(shapes, true) {
		if i%every != 0 {
			continue
		}
		stdout, stderr := filepath.Join(dir, "stdout.jsonl"), filepath.Join(dir, "stderr.txt")
		os.WriteFile(stdout, append(bytes.Join(c.Stdout, []byte("\n")), '\n'), 0o644)
		os.WriteFile(stderr, append(bytes.Join(c.Stderr, []byte("\n")), '\n'), 0o644)
		raw := corpustest.Capture(t, corpustest.Recording{Native: stdout, Stderr: stderr,
			Begin:     capture.Start{EvcapVersion: "test", Provider: c.Provider, Argv: c.Argv, CLIName: c.Provider, OS: "linux", Arch: "amd64"},
			CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: corpustest.Clock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), 7*time.Millisecond),
			SetSession: true})
		total += differ(t, scan.Options{Home: "/home/u", Temp: []string{"/tmp"}}, c.Name(), raw, scan.KindCapture)
		cases++
	}
	if cases < 8 || total == 0 {
		t.Fatalf("%d cases, %d findings: the matrix compared too little", cases, total)
	}
	t.Logf("planted: %d cases, %d findings, equal with and without the prefilter", cases, total)
}

// differRandom compares n files of 60 random records.
func differRandom(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(7, 11))
	total := 0
	for i := range n {
		var lines []string
		for j := range 60 {
			lines = append(lines, randomRecord(r, j+1))
		}
		total += differ(t, scan.Options{Home: "/home/u"}, fmt.Sprintf("random-%d", i), []byte(strings.Join(lines, "\n")+"\n"), scan.KindCapture)
	}
	if total == 0 {
		t.Fatal("no finding in the random records")
	}
	t.Logf("random: %d findings, equal with and without the prefilter", total)
}

func pctEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// randomRecord is one capture record (or several lines of them) holding
// a random secret in one of the ways the gate reads.
func randomRecord(r *rand.Rand, seq int) string {
	secret := scan.RandomSecret(r)
	filler := []string{"", "see ", "the key is ", "x=", "/home/ann/proj/", "Authorization: Bearer ", "[REDACTED:openai-key]"}
	text := filler[r.IntN(len(filler))] + secret + filler[r.IntN(len(filler))]
	switch r.IntN(8) {
	case 0:
		return rec(seq, "native_in", "message", `{"type":"message","content":`+jsonString(text)+`}`)
	case 1:
		return rec(seq, "native_in", "message", `{"content":`+jsonString("t: "+base64Std(text))+`}`)
	case 2:
		return rec(seq, "native_in", "message", `{"content":`+jsonString("https://x.test/?q="+pctEncode(text))+`}`)
	case 3:
		return rec(seq, "native_in", "non_json", jsonString(`{"broken": "`+uescape(text)+`"`))
	case 4:
		return rec(seq, "native_in", "tool", `{"input":{`+jsonString(text)+`:1}}`)
	case 5:
		cut := r.IntN(len(text) + 1)
		return claudeDelta(seq, 0, text[:cut]) + "\n" + claudeDelta(seq, 0, text[cut:])
	case 6:
		return rec(seq, "native_in", "stderr", jsonString(text))
	}
	return rec(seq, "native_in", "user", `{"content":`+jsonString("env:\n"+text+"\nHOME=/home/bob\n")+`}`)
}

func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// FuzzPrefilterDifferential: any text, as a file of lines and as the
// payload of a capture record, gives the same findings with the
// prefilter and without. Seeded with corpus lines and generated secrets
// in every encoding randomRecord makes.
func FuzzPrefilterDifferential(f *testing.F) {
	for _, p := range corpustest.NativeFiles(f) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		every := 7
		if scan.RaceOn {
			every = 40
		}
		for i, l := range bytes.Split(b, []byte("\n")) {
			if i%every == 0 && len(l) < 4096 {
				f.Add(string(l))
			}
		}
	}
	r := rand.New(rand.NewPCG(12, 13))
	for range map[bool]int{false: 200, true: 20}[scan.RaceOn] {
		f.Add(randomRecord(r, 1))
		f.Add(scan.RandomSecret(r))
	}
	opts := scan.Options{Home: "/home/u", Project: "/srv/app", Temp: []string{"/tmp"}}
	on, err := scan.New(opts)
	if err != nil {
		f.Fatal(err)
	}
	off, err := scan.NewWithoutPrefilter(opts)
	if err != nil {
		f.Fatal(err)
	}
	chunked, err := scan.NewWithFoldChunk(opts, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data string) {
		differWith(t, on, off, "fuzz", []byte(data), scan.KindFile)
		differWith(t, chunked, off, "fuzz (small fold chunks)", []byte(data), scan.KindFile)
		capture := rec(1, "meta", "capture.start", `{}`) + "\n" + rec(2, "native_in", "message", `{"content":`+jsonString(data)+`}`) + "\n"
		differWith(t, on, off, "fuzz.jsonl", []byte(capture), scan.KindCapture)
	})
}
