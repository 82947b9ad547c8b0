package jsonwalk_test

import (
	"bytes"
	"fmt"

	"github.com/evcap/evcap/internal/jsonwalk"
)

// A caller that masks one word in every string value and reports where.
func ExampleWalker_Walk() {
	var w jsonwalk.Walker
	in := []byte(`{"msg":"token=hunter2","list":["ok","hunter2 \u0021"]}`)
	out, changed, err := w.Walk(in, jsonwalk.VisitorFunc(func(w *jsonwalk.Walker, t *jsonwalk.Token) error {
		if t.Kind != jsonwalk.String {
			return nil
		}
		if i := bytes.Index(t.Text(), []byte("hunter2")); i >= 0 {
			t.Splice(i, i+len("hunter2"), []byte("***"))
			fmt.Printf("at %s\n", jsonwalk.AppendPointer(nil, w.Path()))
		}
		return nil
	}))
	fmt.Println(string(out), changed, err)
	// Output:
	// at /msg
	// at /list/1
	// {"msg":"token=***","list":["ok","*** \u0021"]} true <nil>
}
