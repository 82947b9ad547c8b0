package record

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
)

// Command runs argv as a child in its own process group and records it.
// It returns when the child has exited and its output is recorded (or the
// drain timeout passed), with the exit code evcap should exit with. An
// error means the capture could not be written; the Result is still
// filled in as far as it goes.
//
// A signal from Options.Signals goes to the child's process group; a
// second SIGINT becomes SIGKILL. Windows has no signals to send: there
// the first SIGINT (or SIGTERM, SIGHUP) sends CTRL_BREAK_EVENT to the
// child's process group, which by default ends a console program, and
// the second SIGINT (or SIGKILL) terminates the child with Process.Kill,
// leaving what it started running; when evcap has no console to send the
// event through, the child is terminated at once. capture.end's notes say
// which was done.
func Command(argv []string, opts Options) (Result, error) {
	opts.defaults()
	if len(argv) == 0 {
		return Result{ExitCode: 2}, errors.New("record: no command given")
	}
	p := newPipeline(&opts, RedactArgv(argv, opts.Redactor), filepath.Base(argv[0]))
	p.exe = argv[0]
	if err := p.prepare(); err != nil {
		return Result{ExitCode: 1}, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{ExitCode: 1}, fmt.Errorf("record: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return Result{ExitCode: 1}, fmt.Errorf("record: stderr pipe: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var inW *os.File
	if opts.Stdin != nil {
		cmd.Stdin = opts.Stdin
		if opts.RecordStdin {
			inR, w, err := os.Pipe()
			if err != nil {
				outR.Close()
				outW.Close()
				errR.Close()
				errW.Close()
				return Result{ExitCode: 1}, fmt.Errorf("record: stdin pipe: %w", err)
			}
			cmd.Stdin, inW = inR, w
			defer inR.Close()
		}
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = childAttr(opts.Transparent)
	ttyIn := opts.Stdin != nil && isatty.IsTerminal(opts.Stdin.Fd())
	startErr := cmd.Start()
	outW.Close()
	errW.Close()
	if f, ok := cmd.Stdin.(*os.File); ok && inW != nil {
		f.Close() // the child has its own copy
	}

	done := make(chan error, 1)
	go func() { done <- p.run() }()

	if startErr != nil {
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		code := 126
		reason := "cannot be executed"
		if errors.Is(startErr, exec.ErrNotFound) || errors.Is(startErr, fs.ErrNotExist) {
			code, reason = 127, "not found"
		}
		fmt.Fprintf(p.con, "evcap: %s: command %s: %v\n", argv[0], reason, startErr)
		p.exit = exitInfo{exit: code, code: &code, notes: []string{fmt.Sprintf("the command %s: %v", reason, startErr)}}
		p.q.close()
		werr := <-done
		return p.result(), werr
	}

	pumps := make(chan struct{}, 2)
	passthrough := &stickyWriter{w: newPipeWriter(opts.Passthrough)}
	go pump(outR, streamStdout, p.q, passthrough, pumps)
	go pump(errR, streamStderr, p.q, &stickyWriter{w: p.con}, pumps)
	if inW != nil {
		go feedStdin(opts.Stdin, inW, p.q)
	}

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var notes []string
	interrupts := 0
	forwarded := false
wait:
	for {
		select {
		case sig := <-opts.Signals:
			s, ok := sig.(syscall.Signal)
			if !ok {
				continue
			}
			if opts.Transparent {
				if (s == syscall.SIGINT || s == syscall.SIGQUIT) && ttyIn {
					continue
				}
				forwarded = true
				notes = append(notes, forwardSignal(cmd.Process, s, false))
				continue
			}
			forwarded = true
			if s == syscall.SIGINT {
				interrupts++
				if interrupts >= 2 {
					s = syscall.SIGKILL
					fmt.Fprintf(p.con, "\nevcap: second interrupt: killing %s\n", filepath.Base(argv[0]))
				}
			}
			notes = append(notes, forwardSignal(cmd.Process, s, true))
		case <-waited:
			break wait
		}
	}

	// The child is gone; its pipes close when every holder (a grandchild
	// may be one) closes them. Wait that long, but not forever.
	timer := time.NewTimer(opts.DrainTimeout)
	for n := 0; n < 2; {
		select {
		case <-pumps:
			n++
			continue
		case <-timer.C:
			notes = append(notes, fmt.Sprintf("the agent exited but its output pipes stayed open (a process it started still holds them); stopped reading %s after it exited", opts.DrainTimeout))
			for _, r := range []*os.File{outR, errR} {
				if r.SetReadDeadline(time.Now()) != nil {
					r.Close()
				}
			}
			for ; n < 2; n++ {
				<-pumps
			}
		}
	}
	timer.Stop()
	outR.Close()
	errR.Close()
	if inW != nil {
		// The child is gone: what the integration writes now is not read
		// by anyone (without evcap it would get EPIPE too).
		inW.Close()
	}
	if passthrough.err != nil {
		notes = append(notes, fmt.Sprintf("--passthrough stopped: %v", passthrough.err))
	}

	ex := exitInfo{notes: notes}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		ex.exit = 128 + int(ws.Signal())
		ex.signal = signalName(ws.Signal())
	} else {
		code := ws.ExitStatus()
		ex.code, ex.exit = &code, code
		ex.ownEnd = !forwarded && len(notes) == 0
	}
	p.exit = ex
	p.q.close()
	werr := <-done
	return p.result(), werr
}

// pump copies a pipe into the queue (and to copyTo, unchanged, as the
// bytes arrive) until EOF or its read deadline.
func pump(r *os.File, s stream, q *queue, copyTo *stickyWriter, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	buf := make([]byte, 64<<10)
	rd := newPipeReader(r)
	for {
		n, err := rd.Read(buf)
		if n > 0 {
			copyTo.Write(buf[:n])
			q.push(s, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// feedStdin copies the integration's input to the child as it arrives and
// queues it for the capture. It ends at EOF of in (closing the child's
// stdin, as the integration closing it would) or when the child's side is
// closed; a read blocked on in when the child exits is left behind.
func feedStdin(in, toChild *os.File, q *queue) {
	buf := make([]byte, 64<<10)
	got := false
	for {
		n, err := in.Read(buf)
		if n > 0 {
			got = true
			q.push(streamStdin, buf[:n])
			if _, werr := toChild.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if got {
				// An input that never held anything (/dev/null) is not
				// part of the conversation.
				q.pushEOF(streamStdin)
			}
			toChild.Close()
			return
		}
	}
}

// stickyWriter stops writing after the first error (a reader of
// --passthrough that went away) instead of failing the recording.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) {
	if s.w == nil || s.err != nil {
		return
	}
	_, s.err = s.w.Write(p)
}
