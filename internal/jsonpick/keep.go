package jsonpick

import (
	"strings"
	"unsafe"
)

// Keeper lets a normalizer read a line in place (ParseOwned on a line it
// was not given) and copy only the strings of it that outlive the call:
// between Borrow(line) and Release, Keep returns a copy of a string that
// lies within line and any other string as it is; Clone always copies.
// Copies go into an arena that is only ever appended to, so no string
// handed out changes. The zero value is ready; a Keeper is not safe for
// concurrent use.
type Keeper struct {
	borrowed []byte
	arena    []byte
	// cloneFn is Clone as a func value, made once (for event.Detach).
	cloneFn func(string) string
}

// keeperBlock is the size of an arena block; a string longer than an
// eighth of it is copied on its own.
const keeperBlock = 16 << 10

// Borrow starts the reading of line in place.
func (k *Keeper) Borrow(line []byte) { k.borrowed = line }

// Release ends it: line may change from now on.
func (k *Keeper) Release() { k.borrowed = nil }

// Keep returns s, or a copy of it when s lies within the borrowed line:
// for every string kept beyond the line being read (map keys included:
// storing a key again replaces the key the map held).
func (k *Keeper) Keep(s string) string {
	if k.borrowed == nil || len(s) == 0 {
		return s
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.SliceData(k.borrowed)))
	if p >= uintptr(len(k.borrowed)) {
		return s
	}
	return k.Clone(s)
}

// Clone returns a copy of s in the arena.
func (k *Keeper) Clone(s string) string {
	if len(s) > keeperBlock/8 {
		return strings.Clone(s)
	}
	if cap(k.arena)-len(k.arena) < len(s) {
		k.arena = make([]byte, 0, keeperBlock)
	}
	k.arena = append(k.arena, s...)
	return unsafe.String(&k.arena[len(k.arena)-len(s)], len(s))
}

// CloneFunc returns Clone as a func value, the same one each call.
func (k *Keeper) CloneFunc() func(string) string {
	if k.cloneFn == nil {
		k.cloneFn = k.Clone
	}
	return k.cloneFn
}
