package promote_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/source"
)

// token is a synthetic GitHub token of the right shape (not a real one).
const token = "ghp_" + "Xq3vT9mK2pL8wR5nB7cJ4hF6dS1aG0eZyU2i"

func loadFixture(t *testing.T) *fixtures.Fixture {
	t.Helper()
	fx, err := fixtures.Load(os.DirFS("../fixtures/testdata"), "claude/fatal-error")
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// withToken returns fx with the token planted in the first native_in
// record's payload, as a field the CLI might add.
func withToken(t *testing.T, fx *fixtures.Fixture) *fixtures.Fixture {
	t.Helper()
	out := *fx
	out.Events = append([]fixtures.Event(nil), fx.Events...)
	p := string(out.Events[0].Payload)
	if !strings.HasPrefix(p, "{") {
		t.Fatalf("first event payload is not an object: %.40s", p)
	}
	out.Events[0].Payload = []byte(`{"note":"token ` + token + `",` + p[1:])
	return &out
}

func machine(t *testing.T) promote.Machine {
	return promote.Machine{Home: "/home/someone", DefaultProject: t.TempDir(), Temp: []string{os.TempDir()}}
}

func claude(t *testing.T) func() replay.Normalizer {
	d, ok := providers.Lookup("claude")
	if !ok {
		t.Fatal("no claude provider")
	}
	return func() replay.Normalizer { return d.Normalizer(provider.Options{}) }
}

func TestSanitizeAndScanRedactsThenPasses(t *testing.T) {
	out, err := os.CreateTemp(t.TempDir(), "clean-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	findings, err := promote.SanitizeAndScan(context.Background(), source.FixtureRecords(withToken(t, loadFixture(t))), "cap.jsonl", out, machine(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 0 {
		t.Errorf("findings after sanitizing: %v", findings)
	}
	clean, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(clean), token) {
		t.Error("the sanitized capture still holds the token")
	}
	if !strings.Contains(string(clean), "[REDACTED:github-token]") {
		t.Error("the sanitized capture does not say where the token was")
	}
}

func TestCheckedRefusesAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	opts := promote.Options{Name: "leaky", Dir: dir, Normalizer: claude(t)}
	out, findings, err := promote.Checked(context.Background(), withToken(t, loadFixture(t)), opts, machine(t))
	if err != nil {
		t.Fatal(err)
	}
	if out != "" || len(findings) == 0 {
		t.Fatalf("Checked of a fixture holding a token: out %q, %d findings; want a refusal", out, len(findings))
	}
	for _, f := range findings {
		if !strings.HasPrefix(f.File, promote.StagePrefix+string(filepath.Separator)) {
			t.Errorf("finding %v does not name the fixture as %s", f, promote.StagePrefix)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused promote wrote %d entries into Dir", len(ents))
	}

	out, findings, err = promote.Checked(context.Background(), loadFixture(t), promote.Options{Name: "clean", Dir: dir, Normalizer: claude(t)}, machine(t))
	if err != nil || len(findings) != 0 {
		t.Fatalf("Checked of a clean fixture: %v, findings %v", err, findings)
	}
	if want := filepath.Join(dir, "claude", "clean"); out != want {
		t.Errorf("promoted to %s, want %s", out, want)
	}
	if _, err := os.Stat(filepath.Join(out, fixtures.FileName)); err != nil {
		t.Error(err)
	}
}
