package event_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/evcap/evcap/event"
)

// TestDetachReachesEveryString fills every string of an Event (and of each
// struct it points to, and Tool.Input) with bytes of one buffer, found by
// reflection so that a field added later is covered too, and checks that
// after Detach no string or byte slice of the event points into the
// buffer, that the values are unchanged, and that strings outside the
// buffer are left alone.
func TestDetachReachesEveryString(t *testing.T) {
	buf := []byte(strings.Repeat("abcdefgh", 64))
	var e event.Event
	fields := 0
	fill(reflect.ValueOf(&e).Elem(), buf, &fields)
	if fields < 40 {
		t.Fatalf("only %d fields filled: the walk missed the event's structs", fields)
	}
	outside := "not in the buffer"
	e.Status = outside
	want, _ := json.Marshal(&e)
	clones := 0
	e.Detach(buf, func(s string) string { clones++; return strings.Clone(s) })
	if unsafe.StringData(e.Status) != unsafe.StringData(outside) {
		t.Errorf("a string outside the buffer was replaced: %q", e.Status)
	}
	got, _ := json.Marshal(&e)
	if string(got) != string(want) {
		t.Errorf("Detach changed the event:\n%s\nwant\n%s", got, want)
	}
	// Status is outside the buffer and Tool.Input is copied, not cloned.
	if clones != fields-2 {
		t.Errorf("clone called %d times for %d strings in the buffer", clones, fields-2)
	}
	for i := range buf {
		buf[i] = '#'
	}
	got, _ = json.Marshal(&e)
	if string(got) != string(want) {
		t.Errorf("after the buffer was overwritten the event changed:\n%s\nwant\n%s", got, want)
	}
}

// fill sets every string and []byte reachable from v (through pointers,
// which it allocates, and slices of strings, which it gives one element)
// to bytes of buf, each field its own slice of it, and counts them.
func fill(v reflect.Value, buf []byte, n *int) {
	switch v.Kind() {
	case reflect.String:
		*n++
		v.SetString(unsafe.String(&buf[*n%len(buf)], 3))
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), buf, n)
		}
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem(), buf, n)
	case reflect.Slice:
		switch v.Type().Elem().Kind() {
		case reflect.Uint8:
			// Tool.Input is JSON: the buffer's last byte, a digit.
			*n++
			buf[len(buf)-1] = '7'
			v.SetBytes(buf[len(buf)-1:])
		case reflect.String:
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			fill(v.Index(0), buf, n)
		}
	}
}
