package record

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evcap/evcap/providers"
)

// installedVersion is the version of the provider's CLI installed at the
// executable argv0 names, read from the package.json of the npm package it
// belongs to (the real CLI, not a wrapper: the path must lead into that
// package), or "" when it cannot be told. Most streams name no version
// (Codex, opencode run, Gemini), so this is where capture.start's
// cliVersion comes from for them. Nothing is run: the CLI's files are read.
// The package is the provider descriptor's NPMPackage; a platform package
// of it (its native binary) starts with that name.
func installedVersion(argv0, provider string) string {
	d, ok := providers.Lookup(provider)
	if !ok || d.NPMPackage == "" || argv0 == "" {
		return ""
	}
	pkg := d.NPMPackage
	path, err := exec.LookPath(argv0)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	for range 6 {
		if v := packageVersion(filepath.Join(dir, "package.json"), pkg); v != "" {
			return v
		}
		parent := filepath.Dir(dir)
		if parent == dir || filepath.Base(dir) == "node_modules" {
			break
		}
		dir = parent
	}
	return ""
}

// packageVersion reads a package.json (small by nature; at most 1 MiB is
// read) and returns its version when its name is pkg or a platform
// package of pkg.
func packageVersion(file, pkg string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	var meta struct{ Name, Version string }
	if json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&meta) != nil {
		return ""
	}
	if meta.Name == pkg || strings.HasPrefix(meta.Name, pkg+"-") {
		return meta.Version
	}
	return ""
}
