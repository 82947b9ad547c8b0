package providers_test

import (
	"slices"
	"testing"

	"github.com/evcap/evcap/providers"
)

func TestTable(t *testing.T) {
	names := providers.Names()
	if !slices.IsSorted(names) || len(names) < 4 {
		t.Fatalf("Names() = %v, want at least 4, sorted", names)
	}
	for _, d := range providers.All() {
		if d.Name == "" || d.CLI == "" || d.NPMPackage == "" || d.System == "" || d.Detect == nil ||
			d.Normalizer == nil || d.Deltas == nil || len(d.VolatileIDKeys) == 0 {
			t.Errorf("%s: descriptor has an empty field: %+v", d.Name, d)
		}
		if (d.History == nil) != (d.DetectHistory == nil) {
			t.Errorf("%s: History and DetectHistory must both be set or both nil", d.Name)
		}
		if !slices.IsSorted(d.VolatileIDKeys) {
			t.Errorf("%s: VolatileIDKeys not sorted: %v", d.Name, d.VolatileIDKeys)
		}
		got, ok := providers.Lookup(d.Name)
		if !ok || got.Name != d.Name {
			t.Errorf("Lookup(%q) = %q, %v", d.Name, got.Name, ok)
		}
		if d.Normalizer(struct{ CumulativeDeltas bool }{}) == nil || d.Deltas() == nil {
			t.Errorf("%s: a constructor returned nil", d.Name)
		}
	}
	if _, ok := providers.Lookup("nobody"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
	a := providers.All()
	a[0].Name = "changed"
	if providers.All()[0].Name == "changed" {
		t.Error("All does not return a fresh slice")
	}
}
