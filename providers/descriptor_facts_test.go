package providers_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
	"github.com/tidwall/gjson"
)

// TestJSONCommands pins the hint record prints for a stdout that is not
// JSON: the same text it had when each CLI's flags were written out in
// record (so taking it from the descriptors changes no output), and the
// flags the corpus was recorded with (testdata/corpus/MANIFEST.md).
func TestJSONCommands(t *testing.T) {
	const want = "claude --output-format stream-json --verbose, codex exec --json, " +
		"gemini --output-format stream-json, opencode run --format json"
	if got := providers.JSONCommands(); got != want {
		t.Errorf("JSONCommands() =\n%s\nwant\n%s", got, want)
	}
}

// TestSessionStores checks each descriptor's SessionStore against the
// stored sessions the CLIs left in the history corpus: its MANIFEST.md says
// where each CLI stored them (the data directory, Path, the file name's
// shape and depth), and the first line of every stored session has, at
// IDField, the session id the live run of the same scenario printed.
func TestSessionStores(t *testing.T) {
	const dir = "../history/testdata/corpus"
	manifest, err := os.ReadFile(filepath.Join(dir, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{} // provider: where MANIFEST.md says its CLI stored the session
	for _, l := range strings.Split(string(manifest), "\n") {
		if name, rest, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(l), "- "), ": "); ok {
			if _, known := providers.Lookup(name); known && strings.Contains(rest, " = `") {
				stored[name] = strings.Trim(strings.SplitN(strings.SplitN(rest, " = `", 2)[1], "`", 2)[0], " ")
			}
		}
	}
	checked := 0
	for _, d := range providers.All() {
		s := d.Sessions
		if s.Path == "" {
			continue
		}
		where := stored[d.Name]
		dataDir := "~/" + s.HomeDir
		if s.DirEnv != "" && !strings.HasPrefix(where, "~/") {
			dataDir = "$" + s.DirEnv
		}
		rel, ok := strings.CutPrefix(where, dataDir+"/"+s.Path)
		if !ok || (rel != "" && rel[0] != '/') {
			t.Errorf("%s: the CLI stored its session at %q, not under %s/%s", d.Name, where, dataDir, s.Path)
			continue
		}
		if s.Database {
			if rel != "" {
				t.Errorf("%s: the database is %q, not %s/%s", d.Name, where, dataDir, s.Path)
			}
			checked++
			continue
		}
		parts := strings.Split(strings.TrimPrefix(rel, "/"), "/")
		base := parts[len(parts)-1]
		if !strings.HasPrefix(base, s.Prefix) || !strings.HasSuffix(base, s.Suffix) ||
			(s.Depth > 0 && len(parts)-1 != s.Depth) || (s.Parent != "" && (len(parts) < 2 || parts[len(parts)-2] != s.Parent)) {
			t.Errorf("%s: %q does not fit %+v", d.Name, where, s)
		}
		if s.IDField == "" {
			checked++
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, d.Name, "*", "history.jsonl"))
		if len(files) == 0 {
			t.Errorf("%s: no stored sessions under %s", d.Name, dir)
		}
		for _, f := range files {
			live := liveSessionID(t, d, filepath.Join(filepath.Dir(f), "live.stdout.jsonl"))
			if got := gjson.GetBytes(firstLine(t, f), s.IDField).String(); got == "" || got != live {
				t.Errorf("%s: %s has %s = %q, the live run's session is %q", d.Name, f, s.IDField, got, live)
			}
		}
		checked++
	}
	if checked < 4 {
		t.Errorf("only %d session stores checked (MANIFEST.md names %v)", checked, stored)
	}
}

// liveSessionID is the session id the normalizer of d reads first from a
// live stdout file.
func liveSessionID(t *testing.T, d provider.Descriptor, file string) string {
	t.Helper()
	n := d.Normalizer(provider.Options{})
	id := ""
	corpustest.EachLine(t, file, func(ref int64, line []byte) {
		for _, e := range n.Line(ref, line) {
			if id == "" {
				id = e.SessionID
			}
		}
	})
	return id
}

// firstLine returns the first line of a file.
func firstLine(t *testing.T, file string) []byte {
	t.Helper()
	var first []byte
	corpustest.EachLine(t, file, func(ref int64, line []byte) {
		if first == nil {
			first = bytes.Clone(line)
		}
	})
	return first
}

// TestReadsCumulative: ReadsCumulative is what the normalizer does. On a
// real stream with deltas, the CumulativeDeltas option changes the events
// of a provider that says it reads cumulative snapshots, and changes none
// of one that says it does not (Codex, on the legacy proto stream's 270
// delta lines).
func TestReadsCumulative(t *testing.T) {
	files := map[string]string{
		"claude":   filepath.Join(corpustest.Dir(t), "claude", "long-text-partial.stdout.jsonl"),
		"codex":    codexProto,
		"gemini":   filepath.Join(corpustest.Dir(t), "gemini", "long-text.stdout.jsonl"),
		"opencode": filepath.Join(corpustest.Dir(t), "opencode", "serve-tools.stdout.jsonl"),
	}
	for _, d := range providers.All() {
		file, ok := files[d.Name]
		if !ok {
			t.Errorf("%s: no stream with deltas to check ReadsCumulative on", d.Name)
			continue
		}
		events := func(o provider.Options) string {
			n := d.Normalizer(o)
			var all []event.Event
			corpustest.EachLine(t, file, func(ref int64, line []byte) {
				all = append(all, n.Line(ref, line)...)
			})
			b, err := json.Marshal(append(all, n.End()...))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		pieces, cumulative := events(provider.Options{}), events(provider.Options{CumulativeDeltas: true})
		if len(pieces) < 100 {
			t.Fatalf("%s: no events from %s", d.Name, file)
		}
		if differ := pieces != cumulative; differ != d.ReadsCumulative {
			t.Errorf("%s: ReadsCumulative is %v, but CumulativeDeltas changes the events of %s: %v", d.Name, d.ReadsCumulative, file, differ)
		}
	}
}
