package scan_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/scan"
	"github.com/google/go-cmp/cmp"
)

// TestTallyIsGroupFindingsCut: a Tally gives GroupFindings' groups, each
// cut to its first locations with the rest counted, whatever order the
// findings come in (a block of deltas reports an earlier line late).
func TestTallyIsGroupFindingsCut(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for round := range 200 {
		var fs []scan.Finding
		seen := map[string]bool{}
		for range r.IntN(300) {
			f := scan.Finding{File: fmt.Sprintf("f%d", r.IntN(3)), Line: int64(1 + r.IntN(50)), Rule: fmt.Sprintf("r%d", r.IntN(4)),
				Pointer: fmt.Sprintf("/p%d", r.IntN(5)), Decoded: []string{"", "base64"}[r.IntN(2)]}
			k := fmt.Sprint(f.File, f.Line, f.Rule, f.Pointer)
			if seen[k] {
				continue
			}
			seen[k] = true
			f.Sequence = f.Line
			fs = append(fs, f)
		}
		// Files come one after another, each file's findings sorted as
		// Read sorts them; the tally gets them in any order within a file.
		byFile := map[string][]scan.Finding{}
		var order []string
		for _, f := range fs {
			if byFile[f.File] == nil {
				order = append(order, f.File)
			}
			byFile[f.File] = append(byFile[f.File], f)
		}
		var sorted, shuffled []scan.Finding
		for _, file := range order {
			x := byFile[file]
			y := append([]scan.Finding(nil), x...)
			sortFindings(x)
			sorted = append(sorted, x...)
			r.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
			shuffled = append(shuffled, y...)
		}
		want := scan.GroupFindings(sorted)
		limit := []int{0, 1, 3, 10}[round%4]
		tl := scan.NewTally(limit)
		for _, f := range shuffled {
			tl.Add(f)
		}
		got := tl.Groups()
		if tl.Findings() != len(fs) {
			t.Fatalf("count %d, want %d", tl.Findings(), len(fs))
		}
		for i := range want {
			if limit > 0 && len(want[i].Findings) > limit {
				want[i].Omitted = len(want[i].Findings) - limit
				want[i].Findings = want[i].Findings[:limit]
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("limit %d: tally differs from GroupFindings (-want +got):\n%s", limit, d)
		}
	}
}

func sortFindings(x []scan.Finding) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && less(x[j], x[j-1]); j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

func less(a, b scan.Finding) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Rule != b.Rule {
		return a.Rule < b.Rule
	}
	return a.Pointer < b.Pointer
}

// TestTallyContextIsPaths: scanning a tree into a Tally gives the groups,
// count and file count Paths and GroupFindings give, and the text report
// says how many were left out.
func TestTallyContextIsPaths(t *testing.T) {
	dir := t.TempDir()
	key := fakeKey()
	var lines []string
	for i := range 30 {
		lines = append(lines, rec(i+1, "native_in", "message", `{"type":"message","content":`+jsonString("use "+key)+`,"session_id":"s"}`))
	}
	lines = append(lines, claudeDelta(31, 0, key[:9]), claudeDelta(32, 0, key[9:]))
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(lines[0]+"\n"), 0o644)
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Paths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	tl := scan.NewTally(0)
	files, err := sc.TallyContext(t.Context(), []string{dir}, tl)
	if err != nil {
		t.Fatal(err)
	}
	if files != res.Files || tl.Findings() != len(res.Findings) || len(res.Findings) < 31 {
		t.Fatalf("tally: %d files %d findings; Paths: %d files %d findings", files, tl.Findings(), res.Files, len(res.Findings))
	}
	if d := cmp.Diff(scan.GroupFindings(res.Findings), tl.Groups()); d != "" {
		t.Fatalf("groups differ (-Paths +Tally):\n%s", d)
	}
	if d := cmp.Diff(scan.NewReport(res), tl.Report(files)); d != "" {
		t.Fatalf("reports differ (-Paths +Tally):\n%s", d)
	}
	cut := scan.NewTally(5)
	if _, err := sc.TallyContext(t.Context(), []string{dir}, cut); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	scan.WriteText(&out, cut.Groups())
	if !strings.Contains(out.String(), "a.jsonl: github-token (31)\n  1:1 /payload/content\n") || !strings.Contains(out.String(), "  … and 26 more\n") {
		t.Fatalf("text report:\n%s", out.String())
	}
}

// TestForgetKeepsOpenBlocksLines: a file with a finding on every line
// makes the scan forget old lines' findings as it goes; a block of deltas
// still open since line 2 must still see that line's finding, so its own
// (the same rule and pointer, seen again in the reassembled block) is not
// reported twice.
func TestForgetKeepsOpenBlocksLines(t *testing.T) {
	key := fakeKey()
	withSession := func(seq int, line string) string {
		return strings.Replace(line, `"sessionId":""`, fmt.Sprintf(`"sessionId":"sess%08d"`, seq), 1)
	}
	lines := []string{rec(1, "meta", "capture.start", `{}`), withSession(2, claudeDelta(2, 0, key+" "))}
	for i := 3; i < 12000; i++ {
		lines = append(lines, withSession(i, rec(i, "native_in", "message", `{"type":"message","content":"nothing"}`)))
	}
	lines = append(lines, claudeDelta(12000, 0, "tail"))
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found, err := sc.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "x.jsonl", scan.KindCapture)
	if err != nil {
		t.Fatal(err)
	}
	var tokens []scan.Finding
	ids := 0
	for _, f := range found {
		switch f.Rule {
		case "github-token":
			tokens = append(tokens, f)
		case scan.RuleVolatileID:
			ids++
		}
	}
	if len(tokens) != 1 || tokens[0].Line != 2 || tokens[0].Decoded != "" || ids < 11000 {
		t.Fatalf("github-token findings %v (want one, line 2, in plain sight); %d volatile ids", tokens, ids)
	}
}
