package layers

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
)

// wireExceptions are the non-test files outside normalize/ and providers/
// allowed to name a provider's wire event types (see wireTypes), each
// with its reason.
var wireExceptions = map[string]string{
	"bench/gen":        "the benchmark generator writes synthetic native streams of each provider (its own test data), it reads none",
	"internal/planted": "the planted-secret matrix places secrets in each provider's native shapes to test recall",
	"fakemodel":        "the fake model speaks the model vendors' streaming APIs, whose event names the CLIs' lines wrap",
	"envelope/record.go": "EventControlResponse: the capture format's eventType for the stream-json " +
		"control_response lines an integration writes to the agent (native_out records), named as the line's type",
	"internal/toolicon": "icons are picked by the words of a tool's name, and the Codex normalizer names a " +
		"file change by its item type",
}

// wireTypes are the values of the "type" members of every line the
// corpus's real CLIs printed, those with a '.' or '_' in them
// ("content_block_delta", "message.part.delta", "turn.completed"): a
// word a provider's format owns. A type evcap's own schemas use too
// ("tool_result" is an event kind) is not one.
func wireTypes(t *testing.T, root string) map[string]bool {
	t.Helper()
	own, err := os.ReadFile(filepath.Join(root, "schema", "event.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, pat := range []string{"corpus*/*/*.stdout.jsonl", "corpus*/*/*.sse.txt", "corpus*/*/*/*.stdout.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(root, "testdata", pat))
		files = append(files, m...)
	}
	if len(files) < 30 {
		t.Fatalf("found %d corpus streams", len(files))
	}
	distinct := regexp.MustCompile(`^[a-z]+([._][a-z]+)+$`)
	types := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "type" && distinct.MatchString(s) && !strings.Contains(string(own), strconv.Quote(s)) {
					types[s] = true
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, f := range files {
		corpustest.EachLine(t, f, func(_ int64, line []byte) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok { // an SSE frame's data
				line = d
			}
			var v any
			if json.Unmarshal(line, &v) == nil {
				walk(v)
			}
		})
	}
	return types
}

// wireLiterals lists the string literals of one Go file that are wire
// types.
func wireLiterals(fset *token.FileSet, f *ast.File, types map[string]bool) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if s, err := strconv.Unquote(lit.Value); err == nil && types[s] {
			found = append(found, fset.Position(lit.Pos()).String()+": "+strconv.Quote(s))
		}
		return true
	})
	return found
}

// TestWireTypesStayInNormalizers: no non-test Go file outside normalize/
// and providers/ names an event type of a provider's output, save the
// files in wireExceptions. Which lines carry what (a delta, the end of a
// block, a session's id) is the provider descriptor's to say: a switch
// on "content_block_delta" elsewhere is a second reading of the format
// that nothing keeps equal (scan had one for streamed blocks).
func TestWireTypesStayInNormalizers(t *testing.T) {
	root := rootDir(t)
	types := wireTypes(t, root)
	for _, must := range []string{"stream_event", "content_block_delta", "message.part.delta", "turn.completed"} {
		if !types[must] {
			t.Fatalf("the corpus gave no wire type %q (%d types)", must, len(types))
		}
	}
	fset := token.NewFileSet()
	files, _ := sourceFiles(t, root, fset)
	used := map[string]bool{}
	for _, gf := range files {
		lits := wireLiterals(fset, gf.f, types)
		if k := exception(wireExceptions, gf.rel); k != "" {
			if len(lits) > 0 {
				used[k] = true
			}
			continue
		}
		for _, l := range lits {
			t.Errorf("%s: a provider's wire type outside normalize/: ask the provider descriptor "+
				"(or add the file to wireExceptions with the reason)", strings.TrimPrefix(l, root+"/"))
		}
	}
	var stale []string
	for k := range wireExceptions {
		if !used[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	for _, k := range stale {
		t.Errorf("wireExceptions lists %s, which names no wire type any more: remove it from the list", k)
	}
}

// TestWireRuleCatchesALiteral proves the check finds a wire type in a
// switch and a comparison, and passes evcap's own words and look-alikes.
func TestWireRuleCatchesALiteral(t *testing.T) {
	types := map[string]bool{"content_block_delta": true, "message.part.delta": true}
	for _, c := range []struct {
		reason, src string
		want        int
	}{
		{"a switch case", `package p; func f(s string) int { switch s { case "content_block_delta": return 1 }; return 0 }`, 1},
		{"a comparison", `package p; func f(s string) bool { return s == "message.part.delta" }`, 1},
		{"a raw string", "package p; const k = `content_block_delta`", 1},
		{"a look-alike", `package p; const k = "content_block_delta_x"`, 0},
		{"inside a text", `package p; const help = "a content_block_delta line"`, 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", c.src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.reason, err)
		}
		if got := wireLiterals(fset, f, types); len(got) != c.want {
			t.Errorf("%s: found %v, want %d", c.reason, got, c.want)
		}
	}
}
