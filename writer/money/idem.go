package money

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"storefront/writer/httpapi"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"storefront/contract"
)

// Answer is a stored or fresh answer of an idempotent call.
type Answer struct {
	Status int
	Body   []byte
	// Replayed is true when the answer comes from an earlier call with the same key.
	Replayed bool
}

func validKey(key string) error {
	if key == "" {
		return httpapi.BadRequest("요청 키(Idempotency-Key 헤더)가 필요합니다.")
	}
	if len(key) > 128 {
		return httpapi.BadRequest("요청 키(Idempotency-Key)는 128자를 넘을 수 없습니다.")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return httpapi.BadRequest("요청 키(Idempotency-Key)에는 영문, 숫자, 기호만 쓸 수 있습니다.")
		}
	}
	return nil
}

// errRefused rolls back a transaction whose operation refused; the refusal
// is then stored on its own.
var errRefused = errors.New("operation refused")

// errKeyTaken rolls back an operation whose key got an answer meanwhile (a
// refusal of the same key stored between its lock wait and its commit).
var errKeyTaken = errors.New("idempotency key answered meanwhile")

// storedAnswer replays what the key holds.
func (s *Service) storedAnswer(ctx context.Context, uid int64, key, op string, h []byte) (Answer, error) {
	var st storedAnswer
	if err := s.pool.QueryRow(ctx, `SELECT op, req_hash, status, body FROM money_idempotency WHERE uid = $1 AND key = $2`,
		uid, key).Scan(&st.op, &st.hash, &st.status, &st.body); err != nil {
		return Answer{}, fmt.Errorf("load idempotency key: %w", err)
	}
	return st.replay(op, h)
}

// once runs fn at most once per (uid, key).
//
// Every money operation of a user starts by locking the user's wallet, and
// the key is looked up after the lock is granted: a concurrent call with the
// same key waits for the first to commit and then finds and replays its
// answer. The answer is stored in the same transaction as the effect. fn gets
// the locked wallet; it may run statements on tx or queue writes in b (sent in
// one round trip with the stored answer: round trips, not CPU, bound a
// purchase's throughput). A business refusal (an *httpapi.Error below 500, such as
// insufficient balance) rolls everything back and is then stored alone, so the
// key replays it too. params identify the request: the same key with other
// params is ErrKeyReuse.
func (s *Service) once(ctx context.Context, uid int64, key, op string, params any, fn func(tx pgx.Tx, b *pgx.Batch, w *Wallet) (any, error)) (Answer, error) {
	return s.oncePre(ctx, uid, key, op, params, nil, fn)
}

// prefetch adds reads to the round trip that takes the wallet lock; they run
// after the lock is granted, so they see what the previous holder committed.
type prefetch interface {
	queue(b *pgx.Batch)
	scan(br pgx.BatchResults) error
}

// checker is a prefetch that validates the request from what it read (and
// may read more on tx) before a stored answer is replayed or the operation
// runs; its error is returned as is, never stored under the key.
type checker interface {
	check(ctx context.Context, tx pgx.Tx) error
}

// oncePre is once with reads fetched together with the wallet lock.
func (s *Service) oncePre(ctx context.Context, uid int64, key, op string, params any, pre prefetch, fn func(tx pgx.Tx, b *pgx.Batch, w *Wallet) (any, error)) (Answer, error) {
	if err := validKey(key); err != nil {
		return Answer{}, err
	}
	pj, err := json.Marshal(params)
	if err != nil {
		return Answer{}, fmt.Errorf("hash %s params: %w", op, err)
	}
	h := sha256.Sum256(append([]byte(op+"\n"), pj...))
	var ans Answer
	var refusal *httpapi.Error
	err = s.inPipeTx(ctx, func(tx *pipeTx) error {
		ans, refusal = Answer{}, nil
		w, stored, err := lockWalletAndKey(ctx, tx, uid, key, pre)
		if err != nil {
			return err
		}
		if c, ok := pre.(checker); ok {
			if err := c.check(ctx, tx); err != nil {
				return err
			}
		}
		if stored != nil {
			ans, err = stored.replay(op, h[:])
			return err
		}
		b := &pgx.Batch{}
		res, ferr := fn(tx, b, w)
		if errors.As(ferr, &refusal) && refusal.Code < 500 {
			return errRefused
		}
		refusal = nil
		if ferr != nil {
			return ferr
		}
		body, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("marshal %s answer: %w", op, err)
		}
		ans = Answer{Status: http.StatusOK, Body: body}
		// No ON CONFLICT: a refusal stored meanwhile under the same key (it is
		// stored without the wallet lock) makes this insert fail, and with it
		// the COMMIT queued behind it, so the effect is never committed
		// without its key.
		b.Queue(`INSERT INTO money_idempotency (uid, key, op, req_hash, status, body, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, uid, key, op, h[:], ans.Status, ans.Body, s.now())
		b.Queue(`COMMIT`)
		br := tx.SendBatch(ctx, b)
		var tag pgconn.CommandTag
		for i := 0; i < b.Len() && err == nil; i++ {
			tag, err = br.Exec()
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe) && pe.Code == "23505" && pe.TableName == "money_idempotency":
			return errKeyTaken
		case err != nil:
			return fmt.Errorf("apply %s: %w", op, err)
		case tag.String() != "COMMIT":
			return fmt.Errorf("apply %s: %w", op, pgx.ErrTxCommitRollback)
		}
		return nil
	})
	switch {
	case errors.Is(err, errRefused):
		return s.storeRefusal(ctx, uid, key, op, h[:], refusal)
	case errors.Is(err, errKeyTaken):
		return s.storedAnswer(ctx, uid, key, op, h[:])
	}
	if err == nil && !ans.Replayed {
		s.cfg.Changed()
	}
	return ans, err
}

// storeRefusal binds key to a refusal, unless a call with the same key
// committed an answer since (then that answer is the key's).
func (s *Service) storeRefusal(ctx context.Context, uid int64, key, op string, h []byte, e *httpapi.Error) (Answer, error) {
	body := contract.ErrorBody(e.Code, e.Msg)
	var st storedAnswer
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO money_idempotency (uid, key, op, req_hash, status, body, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, uid, key, op, h, e.Code, body, s.now())
		if err != nil {
			return fmt.Errorf("store refusal: %w", err)
		}
		if tag.RowsAffected() == 1 {
			st = storedAnswer{op: op, hash: h, status: e.Code, body: body}
			return nil
		}
		return tx.QueryRow(ctx, `SELECT op, req_hash, status, body FROM money_idempotency WHERE uid = $1 AND key = $2`,
			uid, key).Scan(&st.op, &st.hash, &st.status, &st.body)
	})
	if err != nil {
		return Answer{}, err
	}
	a, err := st.replay(op, h)
	a.Replayed = a.Replayed && !bytes.Equal(a.Body, body)
	return a, err
}

type storedAnswer struct {
	op     string
	hash   []byte
	status int
	body   []byte
}

func (st *storedAnswer) replay(op string, h []byte) (Answer, error) {
	if st.op != op || !bytes.Equal(st.hash, h) {
		return Answer{}, ErrKeyReuse
	}
	return Answer{Status: st.status, Body: st.body, Replayed: true}, nil
}

// lockWalletAndKey locks the user's wallet (creating it empty on first use)
// and then reads the idempotency key's stored answer, in one round trip.
func lockWalletAndKey(ctx context.Context, tx *pipeTx, uid int64, key string, pre prefetch) (*Wallet, *storedAnswer, error) {
	for attempt := 0; attempt < 2; attempt++ {
		b := &pgx.Batch{}
		tx.queueBegin(b)
		b.Queue(`SELECT `+walletCols+` FROM wallets WHERE uid = $1 FOR UPDATE`, uid)
		b.Queue(`SELECT op, req_hash, status, body FROM money_idempotency WHERE uid = $1 AND key = $2`, uid, key)
		if pre != nil {
			pre.queue(b)
		}
		br := tx.SendBatch(ctx, b)
		var berr error
		if b.Len() > 0 && b.QueuedQueries[0].SQL == "BEGIN" {
			_, berr = br.Exec()
		}
		w, werr := scanWallet(br.QueryRow())
		var st storedAnswer
		serr := br.QueryRow().Scan(&st.op, &st.hash, &st.status, &st.body)
		var perr error
		if pre != nil && werr == nil && (serr == nil || errors.Is(serr, pgx.ErrNoRows)) {
			perr = pre.scan(br)
		}
		cerr := br.Close()
		switch {
		case berr != nil:
			return nil, nil, fmt.Errorf("begin: %w", berr)
		case perr != nil:
			return nil, nil, perr
		case werr != nil && !errors.Is(werr, pgx.ErrNoRows):
			return nil, nil, fmt.Errorf("lock wallet %d: %w", uid, werr)
		case serr != nil && !errors.Is(serr, pgx.ErrNoRows):
			return nil, nil, fmt.Errorf("load idempotency key: %w", serr)
		case cerr != nil:
			return nil, nil, fmt.Errorf("lock wallet %d: %w", uid, cerr)
		case werr == nil && serr == nil:
			return w, &st, nil
		case werr == nil:
			return w, nil, nil
		}
		if _, err := tx.Exec(ctx, `INSERT INTO wallets (uid) VALUES ($1) ON CONFLICT DO NOTHING`, uid); err != nil {
			return nil, nil, fmt.Errorf("create wallet %d: %w", uid, err)
		}
	}
	return nil, nil, fmt.Errorf("wallet %d vanished", uid)
}

// Execer runs or queues a statement: a pgx.Tx, or a batch through queue.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// queue is an Execer that adds statements to a batch sent later in the
// same transaction.
type queue struct{ b *pgx.Batch }

func (q queue) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	q.b.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

func uidString(uid int64) string { return strconv.FormatInt(uid, 10) }
