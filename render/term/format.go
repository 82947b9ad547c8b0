package term

import (
	"fmt"
	"strconv"
	"time"
)

// thousands formats n with comma separators: 12345 → "12,345".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// duration formats milliseconds for a summary: "566ms", "1.2s", "2m3.4s".
func duration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d >= time.Second {
		d = d.Round(100 * time.Millisecond)
	}
	return d.String()
}

// size formats a byte count: "57 B", "1.2 KiB", "3.4 MiB".
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
	}
}

// percent formats a fraction (0..1) as a whole percentage.
func percent(f float64) string {
	return fmt.Sprintf("%d%%", int(f*100+0.5))
}
