package census

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func TestExtra(t *testing.T) {
	obj := gjson.Parse(`{"z":1,"type":"x","a":2,"id":3}`)
	for _, c := range []struct {
		reason string
		obj    gjson.Result
		prefix string
		known  [][]string
		want   []string
	}{
		{"keys in none of the lists, in order of appearance", obj, "", [][]string{{"type"}, {"id"}}, []string{"z", "a"}},
		{"prefix names the nesting", obj, "item.", [][]string{{"type", "id", "z"}}, []string{"item.a"}},
		{"no lists: every key is extra", obj, "", nil, []string{"z", "type", "a", "id"}},
		{"not an object: nothing", gjson.Parse(`"text"`), "", nil, nil},
		{"missing: nothing", obj.Get("nope"), "", nil, nil},
	} {
		if diff := cmp.Diff(c.want, Extra(c.obj, c.prefix, c.known...)); diff != "" {
			t.Errorf("%s:\n%s", c.reason, diff)
		}
	}
}

func TestAppendSorted(t *testing.T) {
	got := AppendSorted([]string{"first"}, "p.", gjson.Parse(`{"z":1,"b":2,"k":3}`), []string{"k"})
	if diff := cmp.Diff([]string{"first", "p.b", "p.z"}, got); diff != "" {
		t.Error(diff)
	}
}
