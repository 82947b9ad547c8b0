package redact

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TextValue cuts long text exactly as JSON cuts the same text as a string
// value, keeps short text as Text does, and gives back what it wrote.
func TestTextValue(t *testing.T) {
	r, err := New(Options{MaxString: 100})
	if err != nil {
		t.Fatal(err)
	}
	key := "sk-ant-api03-" + strings.Repeat("Zx7_", 8)
	long := key + " " + strings.Repeat("é", 60) + " tail " + key
	got, found := r.TextValue([]byte(long))
	viaJSON, jsonFound, err := r.JSON([]byte(`"` + long + `"`))
	if err != nil {
		t.Fatal(err)
	}
	if `"`+string(got)+`"` != string(viaJSON) {
		t.Errorf("TextValue %q, JSON %s", got, viaJSON)
	}
	if d := cmp.Diff(jsonFound, found); d != "" {
		t.Errorf("findings differ from JSON's (-json +text):\n%s", d)
	}
	if !strings.Contains(string(got), "[TRUNCATED:original "+strconv.Itoa(len(long))+" bytes]") || strings.Contains(string(got), "Zx7_") {
		t.Errorf("not cut or key kept: %q", got)
	}
	again, f2 := r.TextValue(got)
	if string(again) != string(got) || f2 != nil {
		t.Errorf("second pass changed %q to %q (%v)", got, again, f2)
	}

	short := "hello " + key
	g1, f1 := r.TextValue([]byte(short))
	g2, f2 := r.Text([]byte(short))
	if string(g1) != string(g2) || !cmp.Equal(f1, f2) {
		t.Errorf("short text: TextValue %q %v, Text %q %v", g1, f1, g2, f2)
	}
}
