package history

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// serverEntries streams the elements of an opencode server's
// GET /session/{id}/message answer (a JSON array of {info, parts}), one
// message at a time.
type serverEntries struct {
	body io.ReadCloser
	dec  *json.Decoder
	buf  bytes.Buffer
	name string
}

// OpenServer asks a running opencode server (base URL, e.g.
// http://127.0.0.1:4096) for the messages of session id, or of its most
// recently updated session when id is empty. It only sends GET requests.
func OpenServer(ctx context.Context, client *http.Client, base, id string) (Entries, error) {
	if client == nil {
		client = http.DefaultClient
	}
	u, err := url.Parse(strings.TrimSuffix(base, "/"))
	if err != nil {
		return nil, fmt.Errorf("opencode server URL %q: %w", base, err)
	}
	if id == "" {
		if id, err = latestSession(ctx, client, u); err != nil {
			return nil, err
		}
	}
	mu := *u
	mu.Path += "/session/" + url.PathEscape(id) + "/message"
	body, err := get(ctx, client, mu.String())
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(body)
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('[') {
		body.Close()
		return nil, fmt.Errorf("GET %s: the answer is not a JSON array of messages (%v)", mu.String(), err)
	}
	return &serverEntries{body: body, dec: dec, name: mu.String()}, nil
}

func get(ctx context.Context, client *http.Client, u string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return resp.Body, nil
}

// latestSession asks GET /session for the most recently updated session.
func latestSession(ctx context.Context, client *http.Client, u *url.URL) (string, error) {
	su := *u
	su.Path += "/session"
	body, err := get(ctx, client, su.String())
	if err != nil {
		return "", err
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, 64<<20))
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", su.String(), err)
	}
	best, bestAt := "", int64(-1)
	for _, s := range gjson.ParseBytes(b).Array() {
		if at := s.Get("time.updated").Int(); at > bestAt {
			best, bestAt = s.Get("id").String(), at
		}
	}
	if best == "" {
		return "", fmt.Errorf("GET %s: %w", su.String(), ErrNoSession)
	}
	return best, nil
}

func (s *serverEntries) Next() (Entry, error) {
	if !s.dec.More() {
		return Entry{}, io.EOF
	}
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return Entry{}, fmt.Errorf("%s: read message: %w", s.name, err)
	}
	s.buf.Reset()
	if err := json.Compact(&s.buf, raw); err != nil {
		return Entry{}, fmt.Errorf("%s: message: %w", s.name, err)
	}
	line := s.buf.Bytes()
	var at time.Time
	if ms := gjson.GetBytes(line, "info.time.created"); ms.Type == gjson.Number {
		at = time.UnixMilli(ms.Int()).UTC()
	}
	return Entry{Line: line, Time: at}, nil
}

func (s *serverEntries) Close() error { return s.body.Close() }
