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
	"fakemodel/cli.go": "the fake model's harness sets each real CLI up for a recorded run (npm package, the model API " +
		"it speaks, environment, headless arguments), switching on its own CLI constants; fakemodel is on the " +
		"normalizers' layer, below the registry, so it cannot ask providers (the npm package and JSON flags repeat the descriptors')",
}

// exception returns the entry of exceptions (tableExceptions,
// wireExceptions) covering the file at rel (slash path from the module
// root): the file itself or a directory above it; "" when none does.
func exception(exceptions map[string]string, rel string) string {
	for k := range exceptions {
		if rel == k || strings.HasPrefix(rel, k+"/") {
			return k
		}
	}
	return ""
}

// providerTables lists the per-provider tables in one Go file's source:
// a switch with cases, a map literal with keys, or a slice or array
// literal with elements, of two or more provider names, and a function
// comparing a value with two or more of them. A name is a string literal,
// or an identifier in consts (the package's constants whose value is a
// provider name, see nameConsts).
func providerTables(fset *token.FileSet, f *ast.File, consts map[string]string) []string {
	providerName := func(e ast.Expr) string { return providerName(e, consts) }
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

// providerName is the provider e names: a string literal of a provider
// name, or an identifier of consts.
func providerName(e ast.Expr, consts map[string]string) string {
	if id, ok := e.(*ast.Ident); ok {
		return consts[id.Name]
	}
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

// nameConsts maps the package-level constants of files (one package)
// whose value is a provider name to that name: `const Codex CLI = "codex"`
// makes a switch on Codex as much a per-provider table as one on "codex".
func nameConsts(files []*ast.File) map[string]string {
	consts := map[string]string{}
	for _, f := range files {
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if s := providerName(vs.Values[i], nil); s != "" {
							consts[name.Name] = s
						}
					}
				}
			}
		}
	}
	return consts
}

// goFile is one non-test Go file outside normalize/ and providers/.
type goFile struct {
	rel string // slash path from the module root
	f   *ast.File
}

// sourceFiles parses every non-test Go file of the module outside
// normalize/, providers/ and testdata, with the constants of each one's
// package that name a provider (nameConsts, by directory).
func sourceFiles(t *testing.T, root string, fset *token.FileSet) ([]goFile, map[string]map[string]string) {
	t.Helper()
	var files []goFile
	byDir := map[string][]*ast.File{}
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
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("parse %s: %v", rel, err)
			return nil
		}
		files = append(files, goFile{rel, f})
		byDir[path.Dir(rel)] = append(byDir[path.Dir(rel)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("only %d Go files read under %s", len(files), root)
	}
	consts := map[string]map[string]string{}
	for dir, fs := range byDir {
		consts[dir] = nameConsts(fs)
	}
	return files, consts
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
	files, consts := sourceFiles(t, root, fset)
	used := map[string]bool{}
	for _, gf := range files {
		tables := providerTables(fset, gf.f, consts[path.Dir(gf.rel)])
		if k := exception(tableExceptions, gf.rel); k != "" {
			if len(tables) > 0 {
				used[k] = true
			}
			continue
		}
		for _, tbl := range tables {
			t.Errorf("%s: a per-provider table outside normalize/ and providers/: put it in the provider descriptor "+
				"(or add the file to tableExceptions with the reason)", strings.TrimPrefix(tbl, root+"/"))
		}
	}
	for k := range tableExceptions {
		if !used[k] {
			t.Errorf("tableExceptions lists %s, which holds no per-provider table any more: remove it from the list", k)
		}
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
		{"switch on constants of names", `package p; type CLI string; const (A CLI = "claude"; B CLI = "gemini")
			func f(c CLI) int { switch c { case A: return 1; case B: return 2 }; return 0 }`, 1},
		{"constants of other strings", `package p; const (A = "claud"; B = "x"); func f(s string) int { switch s { case A, B: return 1 }; return 0 }`, 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", c.src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.reason, err)
		}
		if got := providerTables(fset, f, nameConsts([]*ast.File{f})); len(got) != c.want {
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
	files, _ := sourceFiles(t, root, fset)
	used := map[string]bool{}
	for _, gf := range files {
		lits := factLiterals(fset, gf.f, facts)
		if _, ok := factExceptions[gf.rel]; ok {
			if len(lits) > 0 {
				used[gf.rel] = true
			}
			continue
		}
		for _, l := range lits {
			t.Errorf("%s: a provider descriptor's fact written out again: take it from package providers "+
				"(or add the file to factExceptions with the reason)", strings.TrimPrefix(l, root+"/"))
		}
	}
	for k := range factExceptions {
		if !used[k] {
			t.Errorf("factExceptions lists %s, which repeats no descriptor fact any more: remove it from the list", k)
		}
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
