// Package matrixtest starts a real Matrix homeserver (dendrite) for tests:
// on a free 127.0.0.1 port, in a temporary directory, with SQLite, no
// federation and no rate limit, and one user logged in. It finds the
// dendrite binaries through EVCAP_DENDRITE_BIN (.ci/setup-dendrite.sh
// builds them and sets it); without it, tests skip with the build command.
// It also reads a room's messages back over plain HTTP, independent of the
// client library the code under test uses.
package matrixtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"maunium.net/go/mautrix"
)

// Env names the directory holding the dendrite binaries the
// homeserver tests run. .ci/setup-dendrite.sh builds them and sets it.
const Env = "EVCAP_DENDRITE_BIN"

// Build is the command that builds the binaries Env points at.
const Build = "GOBIN=$HOME/.cache/evcap/dendrite-v0.13.8 go install " +
	"github.com/matrix-org/dendrite/cmd/{dendrite,generate-keys,generate-config,create-account}@v0.13.8"

// Homeserver is a dendrite started for one test, with one user logged in.
type Homeserver struct {
	URL   string // http://127.0.0.1:<port>
	Token string // the access token of the test user
	log   string // dendrite's log file, shown when the test fails
}

// Start runs a fresh dendrite (SQLite, no federation, no rate
// limit) in a temporary directory on a free loopback port and creates a
// user. Without the binaries it skips the test; with EVCAP_DENDRITE_BIN set
// to a directory that lacks them it fails, since CI must never skip.
func Start(t testing.TB) *Homeserver {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		t.Skipf("no Matrix homeserver: set %s to a directory with the dendrite binaries, built with\n\t%s\n(.ci/setup-dendrite.sh does this)", Env, Build)
	}
	for _, name := range []string{"dendrite", "generate-keys", "generate-config", "create-account"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			t.Fatalf("%s=%s but %s is missing there (%v); build with\n\t%s", Env, bin, name, err, Build)
		}
	}
	dir := t.TempDir()
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return out
	}
	run("generate-keys", "--private-key", "matrix_key.pem")
	conf := run("generate-config", "-dir", "./data", "-server", "localhost:8008")
	conf = configure(t, conf)
	if err := os.WriteFile(filepath.Join(dir, "dendrite.yaml"), conf, 0o600); err != nil {
		t.Fatal(err)
	}

	addr := FreeAddr(t)
	hs := &Homeserver{URL: "http://" + addr, log: filepath.Join(dir, "dendrite.log")}
	logf, err := os.Create(hs.log)
	if err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(filepath.Join(bin, "dendrite"), "--config", "dendrite.yaml", "--http-bind-address", addr)
	srv.Dir = dir
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatalf("start dendrite: %v", err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(hs.log)
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			t.Logf("dendrite log (tail):\n%s", b)
		}
	})
	waitReady(t, hs.URL+"/_matrix/client/versions", 90*time.Second)

	out := run("create-account", "--config", "dendrite.yaml", "--username", "evcapbot",
		"--password", "evcap-test-password-1", "--url", hs.URL)
	m := regexp.MustCompile(`AccessToken: ([A-Za-z0-9._~+/=-]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("create-account printed no access token:\n%s", out)
	}
	hs.Token = string(m[1])
	return hs
}

// configure sets what the test needs in a generated dendrite.yaml: a
// registration secret (create-account registers through the shared-secret
// API), no federation and no client rate limit, so a burst of edits is
// never refused with 429.
func configure(t testing.TB, conf []byte) []byte {
	t.Helper()
	edits := []struct{ re, repl string }{
		{`(?m)^(\s*)registration_shared_secret:.*$`, `${1}registration_shared_secret: "evcap-test-secret"`},
		{`(?m)^(\s*)disable_federation:.*$`, `${1}disable_federation: true`},
		{`(?m)^(\s*rate_limiting:\n\s*)enabled: true`, `${1}enabled: false`},
	}
	for _, e := range edits {
		re := regexp.MustCompile(e.re)
		if !re.Match(conf) {
			t.Fatalf("generated dendrite.yaml has no line matching %s", e.re)
		}
		conf = re.ReplaceAll(conf, []byte(e.repl))
	}
	return conf
}

// FreeAddr returns a loopback address with a port nobody listens on now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitReady(t testing.TB, u string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("dendrite did not answer %s within %s (last error: %v)", u, limit, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// NewRoom creates a private room for the test user with mautrix and
// returns its id.
func (hs *Homeserver) NewRoom(t testing.TB, name string) string {
	t.Helper()
	cli, err := mautrix.NewClient(hs.URL, "", hs.Token)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cli.CreateRoom(context.Background(), &mautrix.ReqCreateRoom{Name: name, Preset: "private_chat"})
	if err != nil {
		t.Fatalf("create room: %v", err)
	}
	return resp.RoomID.String()
}

// MessagesWhenSent is Messages once the room holds at least n of them
// (or 10 s went by), read again a moment later so that a message that
// should not be there has had the same time to arrive: Dendrite hands an
// event sent to its sync and history APIs after the send returns, so a
// read right after the last send can miss it.
func (hs *Homeserver) MessagesWhenSent(t testing.TB, room string, n int) []gjson.Result {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(hs.Messages(t, room)) < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	return hs.Messages(t, room)
}

// Messages reads the room's m.room.message events back through the
// homeserver's API with plain HTTP (not the library under test), oldest
// first, as raw JSON. It pages backwards from the newest event (dendrite
// wants a from token for dir=f) and reverses.
func (hs *Homeserver) Messages(t testing.TB, room string) []gjson.Result {
	t.Helper()
	filter, _ := json.Marshal(map[string]any{"types": []string{"m.room.message"}})
	u := fmt.Sprintf("%s/_matrix/client/v3/rooms/%s/messages?dir=b&limit=100&filter=%s",
		hs.URL, url.PathEscape(room), url.QueryEscape(string(filter)))
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+hs.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /messages: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || !gjson.ValidBytes(body) {
		t.Fatalf("GET /messages: status %d, err %v, body %s", resp.StatusCode, err, bytes.TrimSpace(body))
	}
	if gjson.GetBytes(body, "end").Exists() && len(gjson.GetBytes(body, "chunk").Array()) == 100 {
		t.Fatalf("more than 100 messages in the room; the test reads one page")
	}
	var out []gjson.Result
	chunk := gjson.GetBytes(body, "chunk").Array()
	for i := len(chunk) - 1; i >= 0; i-- {
		if ev := chunk[i]; ev.Get("type").String() == "m.room.message" {
			out = append(out, ev)
		}
	}
	return out
}
