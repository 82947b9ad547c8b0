package record

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInstalledVersion: an npm-installed CLI's version is read from the
// package.json of the package its executable leads into (through the
// node_modules/.bin symlink, as npm lays it out), also for a platform
// package of it; a wrapper or an unrelated package gives nothing.
func TestInstalledVersion(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("node_modules/@openai/codex/package.json", `{"name":"@openai/codex","version":"0.171.0"}`)
	codexJS := write("node_modules/@openai/codex/bin/codex.js", "#!/usr/bin/env node\n")
	write("node_modules/@anthropic-ai/claude-code-linux-x64/package.json", `{"name":"@anthropic-ai/claude-code-linux-x64","version":"2.1.197"}`)
	claudeBin := write("node_modules/@anthropic-ai/claude-code-linux-x64/claude", "#!/bin/sh\n")
	write("node_modules/other/package.json", `{"name":"other","version":"9.9.9"}`)
	otherBin := write("node_modules/other/bin/codex", "#!/bin/sh\n")
	wrapper := write("bin/run.sh", "#!/bin/sh\n")
	bin := filepath.Join(root, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@openai/codex/bin/codex.js", filepath.Join(bin, "codex")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		argv0, provider, want, reason string
	}{
		{filepath.Join(bin, "codex"), "codex", "0.171.0", "npm's .bin symlink into the package"},
		{codexJS, "codex", "0.171.0", "the package's own script"},
		{claudeBin, "claude", "2.1.197", "a platform package of the CLI"},
		{otherBin, "codex", "", "a package of another name"},
		{wrapper, "codex", "", "a wrapper outside any package"},
		{filepath.Join(bin, "codex"), "gemini", "", "another provider's CLI"},
		{"no-such-command-evcap", "codex", "", "not on PATH"},
	} {
		if got := installedVersion(c.argv0, c.provider); got != c.want {
			t.Errorf("%s: installedVersion(%s, %s) = %q, want %q", c.reason, c.argv0, c.provider, got, c.want)
		}
	}
}
