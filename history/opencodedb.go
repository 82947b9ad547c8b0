package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	// modernc.org/sqlite is SQLite translated to Go: no cgo, so evcap
	// stays one static binary, and it reads the files opencode writes.
	_ "modernc.org/sqlite"
)

// ErrNoSession: the database holds no session (or not the one asked for).
var ErrNoSession = errors.New("no such session in the database")

// dbEntries reads one session's messages, each with its parts, from an
// opencode database, in the order the server lists them (by creation
// time, then id), one message in memory at a time.
type dbEntries struct {
	ctx     context.Context
	db      *sql.DB
	tx      *sql.Tx
	rows    *sql.Rows
	session string
	buf     []byte
}

// OpenDB opens an opencode database read-only and prepares to read the
// session with the given id (the most recently updated one when id is
// empty).
//
// The connection is read-only twice over (mode=ro and PRAGMA query_only),
// so neither the database nor its write-ahead log is ever written: a
// read-only connection does not checkpoint. It is not opened immutable,
// because a running opencode may be writing it: SQLite then reads the
// log and the shared-memory index like any other reader, and waits (busy
// timeout) rather than failing while opencode holds a lock. All reads run
// in one transaction, so the session is read as of one moment.
func OpenDB(ctx context.Context, path, id string) (Entries, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open opencode database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	e := &dbEntries{ctx: ctx, db: db}
	if err := e.start(path, id); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

func (e *dbEntries) start(path, id string) error {
	tx, err := e.db.BeginTx(e.ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("read opencode database %s: %w", path, err)
	}
	e.tx = tx
	if id == "" {
		err = tx.QueryRowContext(e.ctx, `SELECT id FROM session ORDER BY time_updated DESC, id DESC LIMIT 1`).Scan(&id)
	} else {
		err = tx.QueryRowContext(e.ctx, `SELECT id FROM session WHERE id = ?`, id).Scan(&id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("opencode database %s: session %q: %w", path, id, ErrNoSession)
	}
	if err != nil {
		return fmt.Errorf("opencode database %s: find session: %w", path, err)
	}
	e.session = id
	e.rows, err = tx.QueryContext(e.ctx,
		`SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id`, id)
	if err != nil {
		return fmt.Errorf("opencode database %s: list messages: %w", path, err)
	}
	return nil
}

// SessionID is the id of the session being read.
func (e *dbEntries) SessionID() string { return e.session }

func (e *dbEntries) Next() (Entry, error) {
	if !e.rows.Next() {
		if err := e.rows.Err(); err != nil {
			return Entry{}, fmt.Errorf("opencode database: read messages: %w", err)
		}
		return Entry{}, io.EOF
	}
	var id, data string
	var created int64
	if err := e.rows.Scan(&id, &created, &data); err != nil {
		return Entry{}, fmt.Errorf("opencode database: read message: %w", err)
	}
	// The parts are read on a second statement of the same transaction
	// while the message rows stay open; SQLite allows that on one
	// connection.
	parts, err := e.tx.QueryContext(e.ctx, `SELECT id, data FROM part WHERE message_id = ? ORDER BY id`, id)
	if err != nil {
		return Entry{}, fmt.Errorf("opencode database: list parts of %s: %w", id, err)
	}
	defer parts.Close()
	b := append(e.buf[:0], `{"info":`...)
	b = withIDs(b, data, "id", id, "sessionID", e.session)
	b = append(b, `,"parts":[`...)
	n := 0
	for parts.Next() {
		var pid, pdata string
		if err := parts.Scan(&pid, &pdata); err != nil {
			return Entry{}, fmt.Errorf("opencode database: read part of %s: %w", id, err)
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = withIDs(b, pdata, "id", pid, "sessionID", e.session, "messageID", id)
	}
	if err := parts.Err(); err != nil {
		return Entry{}, fmt.Errorf("opencode database: read parts of %s: %w", id, err)
	}
	b = append(b, "]}"...)
	e.buf = b
	return Entry{Line: b, Time: time.UnixMilli(created).UTC()}, nil
}

// withIDs appends the JSON object data with the given key/value string
// members put first: the tables keep ids in columns, the server's answer
// (and the normalizer) in the objects. A data that is not an object is
// wrapped as {"…ids…","data":data} so nothing is lost.
func withIDs(dst []byte, data string, kv ...string) []byte {
	dst = append(dst, '{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			dst = append(dst, ',')
		}
		k, _ := json.Marshal(kv[i])
		v, _ := json.Marshal(kv[i+1])
		dst = append(append(append(dst, k...), ':'), v...)
	}
	if !json.Valid([]byte(data)) || len(data) < 2 || data[0] != '{' {
		raw, _ := json.Marshal(data)
		if json.Valid([]byte(data)) {
			raw = []byte(data)
		}
		return append(append(append(dst, `,"data":`...), raw...), '}')
	}
	rest := data[1:]
	for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\n' || rest[0] == '\t' || rest[0] == '\r') {
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] != '}' {
		dst = append(dst, ',')
	}
	return append(dst, rest...)
}

func (e *dbEntries) Close() error {
	if e.rows != nil {
		e.rows.Close()
	}
	if e.tx != nil {
		e.tx.Rollback()
	}
	return e.db.Close()
}
