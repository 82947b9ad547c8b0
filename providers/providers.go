// Package providers is the registry of the agent CLIs evcap understands:
// the one table of providers outside normalize/. Each entry is the
// provider.Descriptor its normalize/<provider> package exports; callers
// (sanitize, replay, record, export, history, cmd) look a provider up here
// by name or by a line it printed, and learn its format from the
// descriptor, never from a switch of their own.
//
// Beside the table it offers what every reader of a capture needs from
// all the descriptors at once: CaptureDeltas follows a capture's native
// delta blocks with each record's provider's tracker, and ProjectPaths
// and ProjectKeys say where lines name the run's working directory.
//
// Adding a provider means adding its package's Provider to all and
// nothing else. The package does no I/O.
package providers

import (
	"bytes"
	"slices"
	"strings"
	"unsafe"

	"github.com/evcap/evcap/envelope"
	"github.com/tidwall/gjson"

	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/provider"
)

// all returns a fresh table, sorted by name.
func all() []provider.Descriptor {
	return []provider.Descriptor{claude.Provider(), codex.Provider(), gemini.Provider(), opencode.Provider()}
}

// All returns every provider's descriptor, sorted by Name; a fresh slice
// each call, so callers may keep or change it.
func All() []provider.Descriptor { return all() }

// Lookup returns the descriptor of the provider named name.
func Lookup(name string) (provider.Descriptor, bool) {
	for _, d := range all() {
		if d.Name == name {
			return d, true
		}
	}
	return provider.Descriptor{}, false
}

// Names lists the providers' names, sorted.
func Names() []string {
	var out []string
	for _, d := range all() {
		out = append(out, d.Name)
	}
	return out
}

// Detect judges one native stdout line on its own: the provider that
// prints it and the format it is in. ok is false for blank lines, SSE
// framing lines and lines that fit nobody. No line of the corpus is
// claimed by two providers (tested); were one ever, the first by Name wins.
func Detect(line []byte) (d provider.Descriptor, format string, ok bool) {
	for _, d := range all() {
		if f, ok := d.Detect(line); ok {
			return d, f, true
		}
	}
	return provider.Descriptor{}, "", false
}

// DetectStream judges the first lines of a stream (without their
// newlines) and returns the first verdict. Blank lines and SSE framing
// lines (":" comments, "event:", "id:", "retry:") are skipped; once one was
// seen, the stream is SSE, so a bare payload after it is judged as the data
// of an SSE event.
func DetectStream(first [][]byte) (d provider.Descriptor, format string, ok bool) {
	sse := false
	for _, line := range first {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			continue
		case isSSEField(line):
			sse = true
			continue
		}
		if sse && !bytes.HasPrefix(line, []byte("data:")) {
			if d, f, ok := Detect(append([]byte("data: "), line...)); ok {
				return d, f, true
			}
		}
		if d, f, ok := Detect(line); ok {
			return d, f, true
		}
	}
	return provider.Descriptor{}, "", false
}

func isSSEField(line []byte) bool {
	for _, p := range []string{":", "event:", "id:", "retry:"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// DetectHistory tells which CLI stored a session, from the first lines of
// the stored file: the first line exactly one provider claims decides.
func DetectHistory(first [][]byte) (provider.Descriptor, bool) {
	for _, line := range first {
		var found []provider.Descriptor
		for _, d := range all() {
			if d.DetectHistory != nil && d.DetectHistory(line) {
				found = append(found, d)
			}
		}
		if len(found) == 1 {
			return found[0], true
		}
	}
	return provider.Descriptor{}, false
}

// HistoryNames lists the providers whose stored sessions evcap reads
// (those with a History normalizer), sorted.
func HistoryNames() []string {
	var out []string
	for _, d := range all() {
		if d.History != nil {
			out = append(out, d.Name)
		}
	}
	return out
}

// JSONCommands names, for every provider, the command that makes its CLI
// print the JSON lines evcap reads, the executable and its
// Descriptor.JSONOutputArgs, joined by ", " in the order of Names:
// "claude --output-format stream-json --verbose, codex exec --json, …".
// It is the hint for a user whose recording holds plain text.
func JSONCommands() string {
	var parts []string
	for _, d := range all() {
		parts = append(parts, strings.Join(append([]string{d.CLI}, d.JSONOutputArgs...), " "))
	}
	return strings.Join(parts, ", ")
}

// ProjectPaths returns the gjson paths at which native lines of the
// provider named name give the run's working directory
// (Descriptor.ProjectPaths). For a name the registry does not know (""
// before a live stream is detected) it returns every provider's, in the
// order of their names.
func ProjectPaths(name string) []string {
	if d, ok := Lookup(name); ok {
		return d.ProjectPaths
	}
	var out []string
	for _, d := range all() {
		out = append(out, d.ProjectPaths...)
	}
	return out
}

// startProjectKey is the member of capture.start's payload that holds
// the recording's working directory.
const startProjectKey = "cwd"

// ProjectKeys lists the last keys of every provider's ProjectPaths and
// capture.start's cwd ("cwd", "directory"), each once and sorted: a
// record that holds none of them, nor an escape that could spell one
// (jsonpick.MayHoldKey), declares no working directory.
func ProjectKeys() []string {
	seen := map[string]bool{startProjectKey: true}
	for _, d := range all() {
		for _, p := range d.ProjectPaths {
			seen[p[strings.LastIndexByte(p, '.')+1:]] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// DeclaredProject returns the working directory a capture record of the
// stage declares in its JSON payload: capture.start's cwd (a meta
// record), or for a native line of the provider named name the first
// absolute path at one of its ProjectPaths. The result has no trailing
// separator and is a copy; "" when the record declares none.
func DeclaredProject(stage envelope.Stage, name string, payload []byte) string {
	switch {
	case !StageDeclares(stage):
		return ""
	case stage == envelope.StageMeta:
		return ProjectAt(payload, []string{startProjectKey})
	}
	return ProjectAt(payload, ProjectPaths(name))
}

// StageDeclares reports whether a record of the stage can declare a
// working directory (DeclaredProject): only capture.start (a meta record)
// and native lines do, so a reader that knows a record's stage need not
// look into the payload of any other.
func StageDeclares(stage envelope.Stage) bool {
	return stage == envelope.StageMeta || stage == envelope.StageNativeIn
}

// ProjectAt returns the first absolute path (POSIX, or a Windows drive's)
// held by a string at one of the gjson paths of the JSON text js, without
// its trailing separators and copied, or "". A stored session names its
// working directory at its SessionStore.ProjectPaths.
func ProjectAt(js []byte, paths []string) string {
	// Looked up in place (gjson.GetBytes copies every value it finds).
	in := unsafe.String(unsafe.SliceData(js), len(js))
	for _, p := range paths {
		v := gjson.Get(in, p)
		if s := v.String(); v.Type == gjson.String && isAbs(s) {
			return strings.Clone(strings.TrimRight(s, "/\\"))
		}
	}
	return ""
}

func isAbs(p string) bool {
	return len(p) > 1 && (p[0] == '/' || len(p) > 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
}
