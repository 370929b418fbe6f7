// Package media is the writer's side of uploaded content (issue 16): the
// admin routes that take files in resumable parts, the processing jobs that
// turn them into the variants readers get (media/process), their versions
// and grace period, and the KV documents the edge serves them from
// (contract/media.go), published through the transactional outbox.
//
// Routes (admin token, under /admin/api/v1/media/):
//
//	POST   uploads                    {size, name?} -> 201 {upload}
//	PUT    uploads/{id}/parts/{n}     raw bytes, parts in order from 1; a part already
//	                                  received may be sent again (same bytes)
//	GET    uploads/{id}               progress: parts and bytes received (resume from here)
//	POST   uploads/{id}/complete      checks the whole file, stores the original -> {upload}
//	DELETE uploads/{id}               abandons it
//	POST   jobs                       {target, pid?, no?, id?, uploads} -> 202 {job}
//	GET    jobs/{id}                  state: queued, running, failed (reason), done (url)
//	GET    jobs?pid=&no=              the latest jobs of a work or volume
package media

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/media/store"
)

// Limits of uploads.
const (
	// MaxUploadBytes is the largest file: a ZIP of a long comic volume.
	MaxUploadBytes = 512 << 20
	// MaxPartBytes is the largest part; PartSize the one clients are told.
	MaxPartBytes = 16 << 20
	PartSize     = 8 << 20
	// MaxJobUploads is how many files (ordered pages) one job may take.
	MaxJobUploads = 500
)

// Config of the media service. Zero values get defaults.
type Config struct {
	// Grace is how long a replaced version stays readable (readers in the
	// middle of it) before its objects are removed.
	Grace time.Duration
	// Lease is how long a claimed job is its worker's; a worker renews it
	// while it works, so a lease that runs out means the worker died.
	Lease time.Duration
	// Poll is how often an idle worker looks for jobs queued on other nodes.
	Poll time.Duration
	// MaxAttempts: a job claimed this often without finishing (it crashed
	// its worker each time) fails instead of crashing the next one.
	MaxAttempts int
	// Workers is how many jobs one writer processes at once (each uses
	// libvips' threads too; one per two cores is plenty).
	Workers int
	Now     func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Grace <= 0 {
		c.Grace = 24 * time.Hour
	}
	if c.Lease <= 0 {
		c.Lease = 5 * time.Minute
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Service holds the routes and the worker.
type Service struct {
	pool  *pgxpool.Pool
	store *store.Store // nil: no content store configured, routes answer 503
	cfg   Config
	log   *slog.Logger
	wake  chan struct{}
	// encoded counts the source pictures this service processed (not
	// reused from media_made).
	encoded atomic.Int64
	files   keyedMutex
	// Changed is called after each commit that enqueued outbox rows (wakes
	// the local relay).
	Changed func()
}

// New makes the service. st may be nil (no CONTENT_STORE_URL).
func New(pool *pgxpool.Pool, st *store.Store, cfg Config, log *slog.Logger) *Service {
	return &Service{pool: pool, store: st, cfg: cfg.withDefaults(), log: log, wake: make(chan struct{}, 1), Changed: func() {}}
}

// Encoded is how many source pictures this service has processed since it
// started; pictures reused from what an earlier job made are not counted.
func (s *Service) Encoded() int64 { return s.encoded.Load() }

// Wake makes an idle worker look for jobs now.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
