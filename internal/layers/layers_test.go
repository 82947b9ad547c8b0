package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/evcap/evcap"

// layerOf gives each package of the module its layer. A package imports
// only from lower layers; packages of one layer never import each other.
// A new package must be added here, which is the moment to decide where it
// belongs.
func layerOf(pkg string) (int, bool) {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	switch {
	case rel == "internal/corpustest":
		// Test support only: above every other layer, so that any non-test
		// import of it is an upward import and fails this test.
		return 50, true
	case rel == "cmd/evcap", strings.HasPrefix(rel, "bench/cmd/"):
		return 40, true
	case rel == "replayrun":
		// evcap replay as a library: plans each input's checks with
		// promote's renderers and checks restored sessions with history
		// (both layer 30), so above them and below cmd.
		return 35, true
	case rel == "promote", rel == "record", rel == "bundle", rel == "minimize", rel == "export", rel == "history":
		return 30, true
	case rel == "replay/replaytest":
		// The go test helpers built on the replay engine (layer 20).
		return 30, true
	case rel == "capture", rel == "replay", rel == "sanitize", rel == "scan", rel == "source":
		return 20, true
	case rel == "normalize/detect":
		// Stream detection's Match API, built on the registry.
		return 17, true
	case rel == "providers":
		// The registry of provider descriptors: above every
		// normalize/<provider>, below everything that uses them.
		return 15, true
	case rel == "redact", rel == "fixtures", rel == "fakemodel", rel == "bench/gen", rel == "view", rel == "census",
		strings.HasPrefix(rel, "normalize/"), strings.HasPrefix(rel, "render/"):
		return 10, true
	case rel == "provider":
		// The descriptor types each normalize/<provider> fills in.
		return 5, true
	case rel == "envelope", rel == "event", rel == "schema", rel == "internal/layers":
		return 0, true
	case rel == "internal/toolicon":
		// The tool icons the term and chat renderers share; presentation, so
		// not in event.
		return 0, true
	case rel == "internal/lines":
		// Below everything: line splitting that every stream reader shares.
		return -10, true
	case rel == "internal/planted":
		// The planted-secret matrix: a generator shared by tests and
		// bench/cmd/plantbench, built on internal/lines only.
		return 0, true
	case rel == "internal/ctxread":
		// Below everything: reads that stop with a context (std lib and
		// x/sys), for source, scan and history alike.
		return -10, true
	case rel == "internal/litdfa":
		// Below everything: the case-folding multi-literal search (std lib
		// only) scan's prefilter and evbench's floor share.
		return -10, true
	case rel == "internal/jsonwalk":
		// The one JSON string walker redact and sanitize share (std lib).
		return 0, true
	case rel == "internal/jsonpick":
		// The one-pass field reader every normalize/<provider> shares
		// (std lib, gjson, internal/textcut).
		return -5, true
	case rel == "internal/termtext":
		// Below everything: escaping input-controlled text for a terminal
		// (std lib only), for cmd's listings and census's table.
		return -10, true
	case rel == "internal/textcut", rel == "internal/census":
		// Below event: the summary/output cutting and the unknown-key census
		// listing that every normalizer shares (std lib and gjson only).
		return -10, true
	}
	return 0, false
}

// layerProvider is the layer of package provider: it and every package
// below it use only the standard library and layer0Allowed.
const layerProvider = 5

// layer0Allowed lists the only third-party modules layer-0 packages (and
// provider) may use.
var layer0Allowed = []string{
	"github.com/oklog/ulid/v2",
	"github.com/tidwall/gjson",
	"github.com/santhosh-tekuri/jsonschema/v6", // schema validates with it
	"golang.org/x/text",                        // the validator's messages
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	checked := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg, imports := fields[0], fields[1:]
		from, ok := layerOf(pkg)
		if !ok {
			t.Errorf("package %s has no layer: add it to layerOf", pkg)
			continue
		}
		checked++
		for _, imp := range imports {
			if strings.HasPrefix(imp, module+"/") {
				to, ok := layerOf(imp)
				if ok && to >= from {
					t.Errorf("%s (layer %d) imports %s (layer %d): imports must go to lower layers", pkg, from, imp, to)
				}
				continue
			}
			if from <= layerProvider && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") && !allowed(imp) {
				t.Errorf("layer-0 package %s imports %s: only the standard library and %v", pkg, imp, layer0Allowed)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d packages checked: go list output was %q", checked, out)
	}
}

func allowed(imp string) bool {
	for _, a := range layer0Allowed {
		if imp == a || strings.HasPrefix(imp, a+"/") {
			return true
		}
	}
	return false
}

// TestRuleCatchesAnUpwardImport proves the check can fail.
func TestRuleCatchesAnUpwardImport(t *testing.T) {
	from, _ := layerOf(module + "/envelope")
	to, _ := layerOf(module + "/capture")
	if !(to >= from) {
		t.Fatal("envelope importing capture would not be caught")
	}
	top, _ := layerOf(module + "/cmd/evcap")
	if support, _ := layerOf(module + "/internal/corpustest"); support <= top {
		t.Fatal("internal/corpustest is not above cmd/evcap, so a non-test import of it would not be caught")
	}
	ev, _ := layerOf(module + "/event")
	desc, _ := layerOf(module + "/provider")
	norm, _ := layerOf(module + "/normalize/claude")
	reg, _ := layerOf(module + "/providers")
	rep, _ := layerOf(module + "/replay")
	if !(ev < desc && desc < norm && norm < reg && reg < rep) {
		t.Fatal("provider is not between event and normalize/<p>, or providers not between normalize/<p> and replay")
	}
	a, _ := layerOf(module + "/normalize/claude")
	b, _ := layerOf(module + "/normalize/codex")
	if a != b {
		t.Fatal("sibling normalizers are not on one layer, so a sibling import would not be caught")
	}
}
