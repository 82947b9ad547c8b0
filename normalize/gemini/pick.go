package gemini

// This file is the same in every normalize/<provider> package, which
// cannot import each other (here without each, which opencode and gemini
// do not need); it is meant to become one internal package.

import (
	"strings"

	"github.com/tidwall/gjson"
)

// pick reads several members of the JSON object obj in one pass over it:
// out[i] becomes what obj.Get(keys[i]) gives, the value of the first
// member named keys[i] (an empty Result when there is none, or when obj is
// not an object). Keys are plain member names, not gjson paths. obj must
// come from a line that passed gjson.ValidBytes.
//
// Each obj.Get walks the object from its start and parses every member
// before the one it wants; pick walks it once, skips the values it does
// not want with bytes.IndexByte over their strings, and parses only the
// values it returns.
func pick(obj gjson.Result, keys []string, out []gjson.Result) {
	clear(out)
	if !obj.IsObject() {
		return
	}
	left := len(keys)
	members(obj.Raw, func(key, val string) bool {
		for i, k := range keys {
			if key == k && !out[i].Exists() {
				out[i] = gjson.Parse(val)
				left--
				break
			}
		}
		return left > 0
	})
}

// members calls fn with the key (unescaped) and the raw value of each
// member of the valid JSON object text obj, in order, until fn returns
// false.
func members(obj string, fn func(key, val string) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		if i >= len(obj) || obj[i] != '"' {
			return // '}' or, on text that is not valid, anything
		}
		kend := skipString(obj, i)
		if kend < 0 {
			return
		}
		key := obj[i+1 : kend-1]
		if strings.IndexByte(key, '\\') >= 0 {
			key = gjson.Parse(obj[i:kend]).Str
		}
		i = skipSpace(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipSpace(obj, i+1)
		end := skipValue(obj, i)
		if end <= i {
			return
		}
		if !fn(key, obj[i:end]) {
			return
		}
		i = end
	}
}

// skipSpace returns the index of the first byte from i on that is not
// JSON white space.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts with the
// quote at s[i], or -1 when it does not end.
func skipString(s string, i int) int {
	j := i + 1
	for {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		bs := 0
		for p := q - 1; p > i && s[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the index just past the JSON value that starts at
// s[i], or -1 when it does not end.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				end := skipString(s, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' &&
		s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	return j
}
