package replaytest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// UpdateEnv is the environment variable that rewrites goldens: "1" (or
// "true") updates, "clean" updates after removing the helper's stale ones.
const UpdateEnv = "EVCAP_UPDATE"

// Updating reports whether goldens are to be rewritten: a boolean -update
// flag defined by the test binary is set, or EVCAP_UPDATE is 1, true or
// clean. It defines no flag and never panics.
func Updating() bool {
	if boolFlag("update") {
		return true
	}
	switch os.Getenv(UpdateEnv) {
	case "1", "true", "clean":
		return true
	}
	return false
}

// cleaning reports whether the helper's stale goldens go first.
func cleaning() bool {
	return Updating() && (boolFlag("clean") || os.Getenv(UpdateEnv) == "clean")
}

// boolFlag is the value of a boolean flag the binary defined, false when
// it defined none (or one that is not boolean).
func boolFlag(name string) bool {
	f := flag.Lookup(name)
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
		return false
	}
	return f.Value.String() == "true"
}

// UpdateHint is the command that reruns exactly this test with goldens
// rewritten.
func UpdateHint(t testing.TB) string {
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	return fmt.Sprintf("(cd %s && %s=1 go test -run '%s')", wd, UpdateEnv, strings.Join(parts, "/"))
}

// testFileName turns a test name into a file name part: "TestX/sub case"
// becomes "TestX-sub_case".
func testFileName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '/':
			return '-'
		case r == '-' || r == '.' || r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'):
			return r
		}
		return '_'
	}, name)
}

// writeGolden writes b to path when its content differs and says whether
// it did; the directory is created when missing.
func writeGolden(path string, b []byte) (bool, error) {
	old, err := os.ReadFile(path)
	if err == nil && string(old) == string(b) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(path, b, 0o644)
}

// removeOwned removes the files in dir whose names start with prefix and
// end in .golden, except keep.
func removeOwned(dir, prefix, keep string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || n == keep || !strings.HasPrefix(n, prefix) || !strings.HasSuffix(n, ".golden") {
			continue
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}
