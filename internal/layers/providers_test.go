package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evcap/evcap/providers"
)

// providerNames are the literal names a per-provider table is keyed by.
var providerNames = []string{"claude", "codex", "gemini", "opencode"}

// isProviderPackage reports a normalize/<provider> package: the one place
// that knows a provider's wire format (normalize/detect is the stream
// detection API over the registry, not a provider).
func isProviderPackage(pkg string) bool {
	rel, ok := strings.CutPrefix(pkg, module+"/normalize/")
	return ok && slices.Contains(providerNames, rel)
}

// mayImportProviders reports a package allowed to import a
// normalize/<provider> package in its non-test files.
func mayImportProviders(pkg string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	return strings.HasPrefix(rel, "normalize/") || rel == "providers"
}

// testImporters are the packages whose tests import a normalize/<provider>
// package directly, each with its reason. Non-test code of every package
// outside normalize/ and providers/ goes through package providers.
var testImporters = map[string]string{
	"cmd/evcap":     "end-to-end tests compare the CLI's output with one provider's normalizer on corpus input",
	"history":       "tests compare a stored session's events with the live capture's, normalized by that provider",
	"minimize":      "tests minimize a real Claude capture with the Claude normalizer as the replayer",
	"record":        "tests normalize what they recorded with the provider they ran",
	"render/matrix": "tests render events a Claude normalizer made of corpus captures",
	"replay":        "tests replay corpus captures through each provider's normalizer and its options",
}

// TestProviderImports: nothing outside normalize/ and providers/ imports a
// normalize/<provider> package; the provider is taken from the registry
// (package providers). Tests of the packages in testImporters may.
func TestProviderImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(l, "|", 3)
		if len(parts) != 3 {
			t.Fatalf("go list line %q", l)
		}
		pkg := parts[0]
		checked++
		if mayImportProviders(pkg) {
			continue
		}
		for _, imp := range strings.Fields(parts[1]) {
			if isProviderPackage(imp) {
				t.Errorf("%s imports %s: take the provider from package providers (providers.Lookup)", pkg, imp)
			}
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		for _, imp := range strings.Fields(parts[2]) {
			if isProviderPackage(imp) && testImporters[rel] == "" {
				t.Errorf("tests of %s import %s: use package providers, or add %s to testImporters with the reason", pkg, imp, rel)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages listed", checked)
	}
}

// tableExceptions are the non-test files outside normalize/ and providers/
// allowed to hold a per-provider table, each with its reason.
var tableExceptions = map[string]string{
	"bench/gen":        "the benchmark generator writes synthetic native streams of each provider (its own test data), it reads none",
	"internal/planted": "the planted-secret matrix places secrets in each provider's native shapes to test recall",
}

// exception returns the tableExceptions entry covering the file at rel
// (slash path from the module root), or "".
func exception(rel string) string {
	for k := range tableExceptions {
		if rel == k || strings.HasPrefix(rel, k+"/") {
			return k
		}
	}
	return ""
}

// providerTables lists the per-provider tables in one Go file's source:
// a switch with cases, a map literal with keys, or a slice or array
// literal with elements, of two or more provider names, and a function
// comparing a value with two or more of them.
func providerTables(fset *token.FileSet, f *ast.File) []string {
	var found []string
	names := func(exprs []ast.Expr) map[string]bool {
		m := map[string]bool{}
		for _, e := range exprs {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Key
			}
			if s := providerName(e); s != "" {
				m[s] = true
			}
		}
		return m
	}
	report := func(n ast.Node, what string, m map[string]bool) {
		if len(m) >= 2 {
			found = append(found, fset.Position(n.Pos()).String()+": "+what+" of "+strings.Join(sortedKeys(m), ", "))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SwitchStmt:
			var cases []ast.Expr
			for _, c := range n.Body.List {
				cases = append(cases, c.(*ast.CaseClause).List...)
			}
			report(n, "switch", names(cases))
		case *ast.CompositeLit:
			report(n, "literal", names(n.Elts))
		case *ast.FuncDecl:
			m := map[string]bool{}
			if n.Body != nil {
				ast.Inspect(n.Body, func(x ast.Node) bool {
					if b, ok := x.(*ast.BinaryExpr); ok && (b.Op == token.EQL || b.Op == token.NEQ) {
						for _, side := range []ast.Expr{b.X, b.Y} {
							if s := providerName(side); s != "" {
								m[s] = true
							}
						}
					}
					return true
				})
			}
			report(n, "comparisons in "+n.Name.Name, m)
		}
		return true
	})
	return found
}

func providerName(e ast.Expr) string {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return ""
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil || !slices.Contains(providerNames, s) {
		return ""
	}
	return s
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// rootDir is the module's directory (this package is internal/layers).
func rootDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// TestOneProviderTable: no non-test Go file outside normalize/ and
// providers/ holds a per-provider table (see providerTables), save the
// files in tableExceptions; what a provider is and how its output looks is
// the descriptor's (normalize/<provider>/provider.go), and code elsewhere
// asks package providers.
func TestOneProviderTable(t *testing.T) {
	root := rootDir(t)
	fset := token.NewFileSet()
	files := 0
	used := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			base := d.Name()
			if path != root && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") ||
				rel == "normalize" || rel == "providers") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("parse %s: %v", rel, err)
			return nil
		}
		tables := providerTables(fset, f)
		if k := exception(rel); k != "" {
			if len(tables) > 0 {
				used[k] = true
			}
			return nil
		}
		for _, tbl := range tables {
			t.Errorf("%s: a per-provider table outside normalize/ and providers/: put it in the provider descriptor "+
				"(or add the file to tableExceptions with the reason)", strings.TrimPrefix(tbl, root+"/"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range tableExceptions {
		if !used[k] {
			t.Errorf("tableExceptions lists %s, which holds no per-provider table any more: remove it from the list", k)
		}
	}
	if files < 100 {
		t.Fatalf("only %d Go files read under %s", files, root)
	}
}

// TestTableRuleCatchesATable proves the check fails on each kind of table
// it knows, and passes one name alone.
func TestTableRuleCatchesATable(t *testing.T) {
	for _, c := range []struct {
		reason, src string
		want        int
	}{
		{"switch on two names", `package p; func f(s string) int { switch s { case "claude": return 1; case "codex": return 2 }; return 0 }`, 1},
		{"names in one case", `package p; func f(s string) bool { switch s { case "gemini", "opencode": return true }; return false }`, 1},
		{"map keyed by names", `package p; var m = map[string]string{"claude": "a", "gemini": "b"}`, 1},
		{"slice of names", `package p; func f() []string { return []string{"codex", "opencode"} }`, 1},
		{"comparisons", `package p; func f(s string) int { if s == "claude" { return 1 }; if "codex" != s { return 2 }; return 0 }`, 1},
		{"one name is no table", `package p; func f(s string) bool { return s == "claude" }`, 0},
		{"other strings", `package p; var m = map[string]int{"claud": 1, "Codex": 2}`, 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", c.src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.reason, err)
		}
		if got := providerTables(fset, f); len(got) != c.want {
			t.Errorf("%s: found %v, want %d", c.reason, got, c.want)
		}
	}
	if !isProviderPackage(module+"/normalize/claude") || isProviderPackage(module+"/normalize/detect") ||
		mayImportProviders(module+"/replay") || !mayImportProviders(module+"/providers") {
		t.Error("the import rule does not tell provider packages and their allowed importers")
	}
}

// factExceptions are the non-test files outside normalize/ and providers/
// allowed to repeat a descriptor fact (see descriptorFacts), each with its
// reason.
var factExceptions = map[string]string{
	"fakemodel/cli.go": "the fake model's harness writes each CLI's environment and arguments for a recorded run; " +
		"fakemodel is on the normalizers' layer, below the registry, so it cannot ask providers",
	"record/writer.go": "the not-JSON warning names each CLI's JSON flags: to take them from providers.JSONCommands " +
		"(record is not this change's; when it does, this entry must go)",
	"cmd/evcap/normalize.go": "help text: a usage example runs codex exec --json",
	"cmd/evcap/record.go":    "help text: a usage example records codex exec --json",
	"cmd/evcap/import.go":    "help text: the table of where each CLI keeps its sessions, shown to the user",
}

// descriptorFacts are the facts of the provider descriptors that name a
// provider's own things, each with what it is: where its CLI keeps its
// data (Sessions.DirEnv, Sessions.HomeDir and a database file name; XDG
// base-directory variables and defaults are every XDG program's, not a
// provider's) and the command that makes it print JSON (CLI and
// JSONOutputArgs). Code that repeats one keeps a second copy of the
// descriptor that nothing keeps equal.
func descriptorFacts() map[string]string {
	facts := map[string]string{}
	for _, d := range providers.All() {
		s := d.Sessions
		if s.DirEnv != "" && !strings.HasPrefix(s.DirEnv, "XDG_") {
			facts[s.DirEnv] = d.Name + " Sessions.DirEnv"
		}
		if s.HomeDir != "" && !strings.HasPrefix(s.HomeDir, ".local/") {
			facts[s.HomeDir] = d.Name + " Sessions.HomeDir"
		}
		if s.Database {
			facts[path.Base(s.Path)] = d.Name + " Sessions.Path"
		}
		if len(d.JSONOutputArgs) > 0 {
			facts[strings.Join(append([]string{d.CLI}, d.JSONOutputArgs...), " ")] = d.Name + " JSONOutputArgs"
		}
	}
	return facts
}

// repeatsFact reports the fact a string literal's value repeats (the
// first by byte order): the fact itself, a path ending in it
// (".../opencode.db"), an environment entry setting it ("CODEX_HOME=..."),
// a text naming a variable ("$CODEX_HOME/sessions") or quoting a command
// ("run codex exec --json").
func repeatsFact(s string, facts map[string]string) (string, bool) {
	keys := map[string]bool{}
	for f := range facts {
		keys[f] = true
	}
	for _, f := range sortedKeys(keys) {
		switch {
		case s == f, strings.HasSuffix(s, "/"+f), strings.HasPrefix(s, f+"="), strings.Contains(s, "$"+f),
			strings.Contains(f, " ") && strings.Contains(s, f):
			return f, true
		}
	}
	return "", false
}

// factLiterals lists the string literals of one Go file's source that
// repeat a descriptor fact.
func factLiterals(fset *token.FileSet, f *ast.File, facts map[string]string) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		if fact, ok := repeatsFact(s, facts); ok {
			found = append(found, fset.Position(lit.Pos()).String()+": "+strconv.Quote(fact)+" ("+facts[fact]+")")
		}
		return true
	})
	return found
}

// TestDescriptorFactsStayInDescriptors: no non-test Go file outside
// normalize/ and providers/ writes out a fact a descriptor holds (see
// descriptorFacts), save the files in factExceptions; it asks package
// providers (providers.Lookup(name).Sessions, providers.JSONCommands).
func TestDescriptorFactsStayInDescriptors(t *testing.T) {
	facts := descriptorFacts()
	if len(facts) < 8 {
		t.Fatalf("only %d descriptor facts: %v", len(facts), facts)
	}
	root := rootDir(t)
	fset := token.NewFileSet()
	files := 0
	used := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			base := d.Name()
			if p != root && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") ||
				rel == "normalize" || rel == "providers") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("parse %s: %v", rel, err)
			return nil
		}
		lits := factLiterals(fset, f, facts)
		if _, ok := factExceptions[rel]; ok {
			if len(lits) > 0 {
				used[rel] = true
			}
			return nil
		}
		for _, l := range lits {
			t.Errorf("%s: a provider descriptor's fact written out again: take it from package providers "+
				"(or add the file to factExceptions with the reason)", strings.TrimPrefix(l, root+"/"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range factExceptions {
		if !used[k] {
			t.Errorf("factExceptions lists %s, which repeats no descriptor fact any more: remove it from the list", k)
		}
	}
	if files < 100 {
		t.Fatalf("only %d Go files read under %s", files, root)
	}
}

// TestFactRuleCatchesARepeat proves the check fails on each way of
// repeating a fact, and passes look-alikes.
func TestFactRuleCatchesARepeat(t *testing.T) {
	facts := descriptorFacts()
	for _, c := range []struct {
		reason, src string
		want        int
	}{
		{"an environment variable", `package p; import "os"; var d = os.Getenv("CODEX_HOME")`, 1},
		{"an environment entry", `package p; var e = []string{"CLAUDE_CONFIG_DIR=/h/.claude"}`, 1},
		{"a variable in a text", `package p; const help = "sessions are in $CODEX_HOME/sessions"`, 1},
		{"a data directory", `package p; import "path/filepath"; var d = filepath.Join("/h", ".gemini", "tmp")`, 1},
		{"a database path", `package p; var d = "/h/.local/share/opencode/opencode.db"`, 1},
		{"a command in a message", `package p; var m = "switch it on (codex exec --json)"`, 1},
		{"a raw string", "package p; var m = `run: opencode run --format json`", 1},
		{"XDG and generic flags are no fact", `package p; var m = []string{"XDG_DATA_HOME", "--json", "--format", "stream-json", "projects"}`, 0},
		{"a name alone is no fact", `package p; var m = "claude codex"`, 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", c.src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.reason, err)
		}
		if got := factLiterals(fset, f, facts); len(got) != c.want {
			t.Errorf("%s: found %v, want %d", c.reason, got, c.want)
		}
	}
}
