package sanitize

// fifo is a first-in, first-out queue of items that reuses its array: it
// is sliced from the front as items leave, and moved back to the start
// when it is empty or half of the array lies behind its head, so a queue
// that is filled and drained record by record makes no new array per
// record (slicing alone made one on every append once the front was gone).
// Both of the package's in-order stages (sanitizer and LineRedactor) hold
// their waiting records in one.
type fifo[T any] struct {
	items []T // waiting from head on
	head  int
}

// push adds x at the back.
func (q *fifo[T]) push(x T) { q.items = append(q.items, x) }

// len is the number of items waiting.
func (q *fifo[T]) len() int { return len(q.items) - q.head }

// waiting is the items waiting, front first; valid until the next push,
// pop or compact.
func (q *fifo[T]) waiting() []T { return q.items[q.head:] }

// front is the first item waiting; the queue must not be empty.
func (q *fifo[T]) front() T { return q.items[q.head] }

// pop removes and returns the first item waiting; the queue must not be
// empty. Its slot is cleared, so the queue keeps nothing alive it gave up.
func (q *fifo[T]) pop() T {
	x := q.items[q.head]
	var zero T
	q.items[q.head] = zero
	q.head++
	return x
}

// compact moves the waiting items to the start of the array when the
// queue is empty or half of the array is behind its head.
func (q *fifo[T]) compact() {
	if q.head == 0 || q.head < len(q.items)-q.head {
		return
	}
	n := copy(q.items, q.items[q.head:])
	clear(q.items[n:])
	q.items, q.head = q.items[:n], 0
}
