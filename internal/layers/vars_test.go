package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The rule of docs/STYLE.md "no package-level mutable state": a package
// exports no variable, because any importer could reassign it and change
// the behaviour of every other importer in the same binary (a table, an
// epoch, a default). Tables become functions returning a fresh slice,
// values become constants. The one exception is a sentinel error
// (var ErrX = errors.New(...)), which callers compare with errors.Is and
// which cannot be a constant.

// pending lists the exported variables that other owners are turning
// into functions or constants (wave 16): the test tolerates exactly these.
// An entry whose variable is gone is only logged, so that the owner's
// commit and the removal of its line here need not land together; remove
// the line when the log says so.
var pending = map[string]string{}

// exportedVars returns "file:line name" for every exported package-level
// variable of src that is not a sentinel error. A name counts as a
// sentinel when it starts with "Err" and is initialized with a call
// (errors.New, fmt.Errorf, or a constructor of an error type).
func exportedVars(fset *token.FileSet, f *ast.File) []string {
	var found []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !name.IsExported() {
					continue
				}
				if isSentinel(name.Name, vs, i) {
					continue
				}
				found = append(found, fset.Position(name.Pos()).String()+" "+name.Name)
			}
		}
	}
	return found
}

func isSentinel(name string, vs *ast.ValueSpec, i int) bool {
	if !strings.HasPrefix(name, "Err") {
		return false
	}
	if len(vs.Values) != len(vs.Names) {
		return false
	}
	_, isCall := vs.Values[i].(*ast.CallExpr)
	return isCall
}

// moduleRoot walks up from this package's directory to the go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// TestNoExportedMutableVars parses every non-test Go file of the module
// (testdata, hidden and underscore directories skipped, as the go command
// does) and fails on each exported package-level var that is not an Err*
// sentinel.
func TestNoExportedMutableVars(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	var found []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				// A nested module is not part of this one.
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, v := range exportedVars(fset, f) {
			rel, _ := filepath.Rel(root, strings.SplitN(v, ":", 2)[0])
			rel = filepath.ToSlash(rel)
			found = append(found, rel+":"+strings.SplitN(v, ":", 2)[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("parsed only %d Go files under %s: the walk missed the module", files, root)
	}
	sort.Strings(found)
	seen := map[string]bool{}
	for _, v := range found {
		// v is "dir/file.go:line:col Name"; pending is keyed without the position.
		file, rest, _ := strings.Cut(v, ":")
		key := file + " " + rest[strings.LastIndex(rest, " ")+1:]
		if _, ok := pending[key]; ok {
			seen[key] = true
			continue
		}
		t.Errorf("exported package variable (make it a function or a constant, or unexport it): %s", v)
	}
	for key, what := range pending {
		if !seen[key] {
			t.Logf("%s is no longer an exported variable (%s): remove it from pending", key, what)
		}
	}
}

// TestExportedVarsSelfTest proves the check catches what it should and
// lets sentinels and unexported names through.
func TestExportedVarsSelfTest(t *testing.T) {
	const src = `package p

import "errors"

var ErrGone = errors.New("gone")
var ErrAlias = ErrGone
var Table = []string{"a"}
var (
	hidden = 1
	Epoch, Other int
)
var _ = hidden
const Fine = 1
func F() {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range exportedVars(fset, f) {
		names = append(names, v[strings.LastIndex(v, " ")+1:])
	}
	want := "ErrAlias Table Epoch Other"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("flagged %q, want %q", got, want)
	}
}
