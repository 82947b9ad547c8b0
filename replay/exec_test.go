package replay_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// execFixture loads fixtures/testdata/<provider>/tools.
func execFixture(t *testing.T, provider string) []replay.NativeLine {
	t.Helper()
	fx, err := fixtures.Load(os.DirFS(filepath.Join("..", "fixtures", "testdata", provider, "tools")), ".")
	if err != nil {
		t.Fatal(err)
	}
	return replay.NativeStream(fx, false)
}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed: %v", name, err)
	}
}

var providers = []string{"claude", "codex", "gemini", "opencode"}

// execGolden reads testdata/exec/<provider>-tools.golden; EVCAP_UPDATE=1
// writes it from render.js fed line by line.
func execGolden(t *testing.T, provider string, lines []replay.NativeLine) []byte {
	t.Helper()
	path := filepath.Join("testdata", "exec", provider+"-tools.golden")
	if os.Getenv("EVCAP_UPDATE") == "1" {
		d, err := replay.Exec(t.Context(), lines, replay.ExecOptions{Command: "node testdata/exec/render.js",
			Chunking: replay.Chunking{Kind: replay.ChunkLine}})
		if err != nil || d.Err != nil {
			t.Fatalf("render.js: %v %v\n%s", err, d.Err, d.Stderr)
		}
		if err := os.WriteFile(path, d.Output, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with EVCAP_UPDATE=1 go test ./replay -run TestExecPrograms)", err)
	}
	return b
}

// TestExecPrograms: a Node and a Python renderer that read whole lines
// give their golden under whole, line, byte and random chunking, for a
// fixture of each provider.
func TestExecPrograms(t *testing.T) {
	needTool(t, "node")
	needTool(t, "python3")
	chunkings := []replay.Chunking{{Kind: replay.ChunkWhole}, {Kind: replay.ChunkLine}, {Kind: replay.ChunkByte}, {Kind: replay.ChunkRandom, Seed: 1}}
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			lines := execFixture(t, p)
			want := execGolden(t, p, lines)
			if len(strings.Split(string(want), "\n")) < len(lines) {
				t.Fatalf("golden has fewer lines than the %d native lines", len(lines))
			}
			for _, cmd := range []string{"node testdata/exec/render.js", "python3 testdata/exec/render.py"} {
				runs, bad, err := replay.CheckExec(t.Context(), lines, want, replay.ExecCheck{Exec: replay.ExecOptions{Command: cmd}, Check: cmd, Chunkings: chunkings})
				if err != nil {
					t.Fatal(err)
				}
				if len(runs) != len(chunkings) {
					t.Fatalf("%s: %d runs, want one per chunking", cmd, len(runs))
				}
				for _, m := range bad {
					t.Errorf("%s", m.Error())
				}
			}
		})
	}
}

// firstTorn is the index of the first native line that chunking c splits
// across two writes.
func firstTorn(lines []replay.NativeLine, c replay.Chunking) int {
	for ch := range c.Chunks(lines) {
		if !ch.LineEnd {
			return ch.Last
		}
	}
	return -1
}

// TestExecClassicBug: the Node program that parses each 'data' chunk as
// whole lines passes whole and line chunkings and is caught by every
// random seed; the report names the chunking, the exit status and the
// first native line the chunking tore, which is where JSON.parse threw.
func TestExecClassicBug(t *testing.T) {
	needTool(t, "node")
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			lines := execFixture(t, p)
			want := execGolden(t, p, lines)
			chunkings := []replay.Chunking{{Kind: replay.ChunkWhole}, {Kind: replay.ChunkLine},
				{Kind: replay.ChunkRandom, Seed: 1}, {Kind: replay.ChunkRandom, Seed: 2}, {Kind: replay.ChunkRandom, Seed: 3}}
			_, bad, err := replay.CheckExec(t.Context(), lines, want, replay.ExecCheck{
				Exec:      replay.ExecOptions{Command: "node testdata/exec/render-classic-bug.js"},
				Chunkings: chunkings, Check: "classic bug", Update: "evcap replay ... --update"})
			if err != nil {
				t.Fatal(err)
			}
			failed := map[string]*replay.Mismatch{}
			for _, m := range bad {
				failed[m.Chunking] = m
			}
			for _, c := range chunkings {
				m := failed[c.String()]
				if (m != nil) != (c.Kind == replay.ChunkRandom) {
					t.Errorf("chunking %s: mismatch %v, want one only for random chunkings", c, m)
					continue
				}
				if m == nil {
					continue
				}
				torn := firstTorn(lines, c)
				named := false
				for _, l := range m.Fed {
					named = named || l.Index == torn
				}
				text := m.Error()
				if !named || !strings.Contains(text, "being fed: native line") || !strings.Contains(text, "exit status 1") {
					t.Errorf("chunking %s: report does not name native line %d (the first torn one) and the exit:\n%s", c, torn+1, text)
				}
			}
		})
	}
}
