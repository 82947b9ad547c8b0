package opencode

import "sort"

// mergeRefs returns the sorted union of a and b.
func mergeRefs(a, b []int64) []int64 {
	if len(b) == 0 {
		return a
	}
	out := append(append([]int64(nil), a...), b...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	w := 0
	for i, r := range out {
		if i > 0 && r == out[w-1] {
			continue
		}
		out[w] = r
		w++
	}
	return out[:w]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
