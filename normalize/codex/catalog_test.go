package codex

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
)

// catalogEntry is one type of a pinned catalog (testdata/catalog/*.txt):
// what codex's own published definitions say it can print.
type catalogEntry struct {
	file, kind, name string
	fields           []string
}

func readCatalogs(t *testing.T) []catalogEntry {
	t.Helper()
	files, _ := filepath.Glob("testdata/catalog/*.txt")
	if len(files) < 4 {
		t.Fatalf("%d catalog files in testdata/catalog, want the 4 pinned ones", len(files))
	}
	var out []catalogEntry
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh) // catalog files are short text lines
		n := 0
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			parts := strings.Fields(line)
			e := catalogEntry{file: filepath.Base(f), kind: parts[0], name: parts[1]}
			if len(parts) > 2 {
				e.fields = strings.Split(parts[2], ",")
			}
			out = append(out, e)
			n++
		}
		fh.Close()
		if n == 0 {
			t.Fatalf("%s lists no types", f)
		}
	}
	return out
}

// catalogLine builds the smallest line of the entry's type that carries
// every listed field (as null: the census looks at names, not values).
func catalogLine(t *testing.T, e catalogEntry) []byte {
	t.Helper()
	fields := map[string]any{}
	for _, f := range e.fields {
		fields[f] = nil
	}
	var v map[string]any
	switch e.kind {
	case "event":
		v = fields
		v["type"] = e.name
		if strings.HasPrefix(e.name, "item.") && e.name != "item.plan.delta" {
			v["item"] = map[string]any{"id": "item_0", "type": "agent_message", "text": "x"}
		}
	case "item", "itemtype":
		fields["id"] = "item_0"
		if e.kind == "item" {
			fields["type"] = e.name
		} else {
			fields["item_type"] = e.name
		}
		v = map[string]any{"type": "item.completed", "item": fields}
	case "legacy":
		fields["type"] = e.name
		v = map[string]any{"id": "0", "msg": fields}
	default:
		t.Fatalf("%s: unknown catalog kind %q", e.file, e.kind)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCatalogTypesAreHandledOrIgnored fails when a type of a pinned
// catalog is neither handled nor ignored with a reason, or when a field
// the catalog lists for it is unknown to the census: update the tables in
// classify.go (and the mapping in Line) when a catalog update adds one.
func TestCatalogTypesAreHandledOrIgnored(t *testing.T) {
	entries := readCatalogs(t)
	handled, ignored := 0, 0
	for _, e := range entries {
		line := catalogLine(t, e)
		c := New().Classify(line)
		switch {
		case c.Disposition == event.DispositionUnknown:
			t.Errorf("%s: %s %s (%s) is neither handled nor ignored with a reason", e.file, e.kind, e.name, c.NativeType)
		case c.Disposition == event.DispositionIgnored && c.Reason == "":
			t.Errorf("%s: %s %s is ignored without a reason", e.file, e.kind, e.name)
		case c.Disposition == event.DispositionIgnored:
			ignored++
		default:
			handled++
		}
		if len(c.UnknownFields) > 0 {
			t.Errorf("%s: %s %s: fields %v unknown to the census", e.file, e.kind, e.name, c.UnknownFields)
		}
		for _, ev := range New().Line(1, line) {
			if ev.Kind == event.KindUnknown {
				t.Errorf("%s: %s %s: Line gives an unknown event although Classify says %s", e.file, e.kind, e.name, c.Disposition)
			}
		}
	}
	t.Logf("%d catalog entries: %d handled, %d ignored with a reason", len(entries), handled, ignored)
}
