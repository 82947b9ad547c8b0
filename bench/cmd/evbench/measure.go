//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

// sample is one run of one tool.
type sample struct {
	wall, cpu time.Duration
	sys       time.Duration // the kernel's share of cpu
	faults    int64         // page faults (minor and major)
	maxRSS    int64         // bytes
	exit      int
}

// timeBin is GNU time, used for peak RSS when present. A child started by
// Go (vfork, then exec) inherits evbench's own high-water RSS in
// ru_maxrss, which would put a floor of evbench's size under every figure;
// GNU time forks the command from its own small process.
var timeBin, _ = exec.LookPath("/usr/bin/time")

// measure runs argv with stdin from in ("" for none) and stdout to out
// ("" for /dev/null), and reads the child's rusage from wait4 (peak RSS
// from GNU time when there is one).
func measure(argv []string, in, out string, env ...string) (sample, error) {
	var rssFile string
	if timeBin != "" {
		f, err := os.CreateTemp("", "evbench-rss-")
		if err != nil {
			return sample{}, err
		}
		f.Close()
		rssFile = f.Name()
		defer os.Remove(rssFile)
		argv = append([]string{timeBin, "-f", "%M", "-o", rssFile}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	if in != "" {
		f, err := os.Open(in)
		if err != nil {
			return sample{}, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	if out == "" {
		out = os.DevNull
	}
	f, err := os.Create(out)
	if err != nil {
		return sample{}, err
	}
	defer f.Close()
	cmd.Stdout = f
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		return sample{}, fmt.Errorf("%v: %w", argv, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := sample{
		wall:   wall,
		cpu:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		sys:    time.Duration(ru.Stime.Nano()),
		faults: ru.Minflt + ru.Majflt,
		maxRSS: ru.Maxrss << 10,
		exit:   cmd.ProcessState.ExitCode(),
	}
	if rssFile != "" {
		data, err := os.ReadFile(rssFile)
		if err != nil {
			return sample{}, err
		}
		var kb int64
		if _, err := fmt.Sscan(string(bytes.TrimSpace(lastLine(data))), &kb); err != nil {
			return sample{}, fmt.Errorf("%v: GNU time wrote %q: %w", argv, data, err)
		}
		s.maxRSS = kb << 10
	}
	if s.exit != 0 && len(stderr.b) > 0 {
		fmt.Fprintf(os.Stderr, "evbench: %v exited %d: %s\n", argv, s.exit, stderr.b)
	}
	return s, nil
}

// lastLine returns the last non-empty line (GNU time puts "Command exited
// with non-zero status" before the figure).
func lastLine(b []byte) []byte {
	b = bytes.TrimRight(b, "\n")
	return b[bytes.LastIndexByte(b, '\n')+1:]
}

// limitedBuffer keeps the first 4 KiB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// median returns the sample with the median wall time (the lower one of
// two), with the largest peak RSS seen in any run.
func median(ss []sample) sample {
	sorted := slices.Clone(ss)
	slices.SortFunc(sorted, func(a, b sample) int { return int(a.wall - b.wall) })
	m := sorted[(len(sorted)-1)/2]
	for _, s := range ss {
		m.maxRSS = max(m.maxRSS, s.maxRSS)
	}
	return m
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func mib(n int64) float64 { return float64(n) / (1 << 20) }
