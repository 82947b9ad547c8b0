package sanitize

import (
	"slices"
	"testing"
)

// TestFIFOReusesItsArray fills and drains a fifo the way the in-order
// stages do (a few in, most out, again and again) and checks the order,
// that a popped slot keeps nothing alive, and that the array stays the
// same size instead of growing with every item ever pushed.
func TestFIFOReusesItsArray(t *testing.T) {
	var q fifo[*int]
	var want []int
	next, got := 0, []int(nil)
	for round := 0; round < 1000; round++ {
		for range 3 {
			v := next
			q.push(&v)
			want = append(want, v)
			next++
		}
		for q.len() > 1 {
			got = append(got, *q.pop())
			if q.items[q.head-1] != nil {
				t.Fatal("a popped slot still points at its item")
			}
		}
		q.compact()
		if cap(q.items) > 16 {
			t.Fatalf("round %d: the array grew to %d for at most 4 waiting items", round, cap(q.items))
		}
	}
	if w := q.waiting(); len(w) != 1 || *w[0] != next-1 || *q.front() != next-1 {
		t.Fatalf("waiting %v, want the last item pushed", w)
	}
	got = append(got, *q.pop())
	if !slices.Equal(got, want) {
		t.Fatal("items came out in another order than they went in")
	}
	q.compact()
	if q.len() != 0 || q.head != 0 || len(q.items) != 0 {
		t.Fatalf("empty queue not back at the start: head %d, %d items", q.head, len(q.items))
	}
}
