package envelope

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHelperWriterProcess is not a test: TestKill9 runs the test binary again
// with EVCAP_TEST_WRITER set, and this function becomes a process that
// writes records until it is killed, reporting each sequence number on
// stdout as soon as Write returned.
func TestHelperWriterProcess(t *testing.T) {
	path := os.Getenv("EVCAP_TEST_WRITER")
	if path == "" {
		t.Skip("helper process for TestKill9")
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	w := NewWriter(f, WriterOptions{CaptureID: "01JDXKQ5T8M3V9ZQ7G2H4N6P8R"})
	big := strings.Repeat("x", 300<<10)
	for i := 1; ; i++ {
		payload := `{"type":"text","n":` + strconv.Itoa(i) + `}`
		if i%7 == 0 {
			payload = `{"type":"tool_result","output":"` + big + `"}`
		}
		seq, err := w.Write(&Record{Provider: "claude", Stage: StageNativeIn, EventType: "x", Payload: []byte(payload)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		fmt.Println(seq)
		time.Sleep(time.Millisecond)
	}
}

// TestKill9 kills a writing process with SIGKILL mid-stream and checks that
// its capture reads back as a gapless run of whole records, with at most a
// torn last line, and that it lost only what was written shortly before
// the kill.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	for round := 0; round < 3; round++ {
		path := filepath.Join(t.TempDir(), "cap.jsonl")
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriterProcess$")
		cmd.Env = append(os.Environ(), "EVCAP_TEST_WRITER="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		type report struct {
			seq int64
			at  time.Time
		}
		reports := make(chan report, 1<<16)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if n, err := strconv.ParseInt(sc.Text(), 10, 64); err == nil {
					reports <- report{n, time.Now()}
				}
			}
			close(reports)
		}()
		time.Sleep(time.Duration(300+round*170) * time.Millisecond)
		killedAt := time.Now()
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		var safe int64 // written well before the kill: must be on disk
		var last int64
		for r := range reports {
			if killedAt.Sub(r.at) > 500*time.Millisecond {
				safe = r.seq
			}
			last = r.seq
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rd := NewReader(f, path, ReaderOptions{})
		var got int64
		var torn int
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if errors.Is(err, ErrTornLine) {
				torn++
				continue
			}
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if torn > 0 {
				t.Fatalf("round %d: record after a torn line", round)
			}
			if rec.Sequence != got+1 {
				t.Fatalf("round %d: sequence %d after %d", round, rec.Sequence, got)
			}
			got = rec.Sequence
		}
		f.Close()
		if torn > 1 {
			t.Fatalf("round %d: %d torn lines", round, torn)
		}
		if got < safe {
			t.Fatalf("round %d: file ends at sequence %d but %d was written more than 500ms before the kill", round, got, safe)
		}
		if got > last+1 {
			t.Fatalf("round %d: file has sequence %d, writer reported only %d", round, got, last)
		}
		t.Logf("round %d: writer reported %d records, %d on disk, torn=%d", round, last, got, torn)
	}
}
