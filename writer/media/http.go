package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/media/process"
	"storefront/writer/httpapi"
	"storefront/writer/staff"
)

// Korean refusals (the admin screen shows them as they are).
var (
	errNoStore      = &httpapi.Error{Code: http.StatusServiceUnavailable, Msg: "콘텐츠 저장소가 설정되지 않았습니다."}
	errUploadSize   = httpapi.Errorf(http.StatusRequestEntityTooLarge, "파일이 너무 큽니다. 최대 %d MB까지 올릴 수 있습니다.", MaxUploadBytes>>20)
	errPartSize     = httpapi.Errorf(http.StatusRequestEntityTooLarge, "파트가 너무 큽니다. 최대 %d MB입니다.", MaxPartBytes>>20)
	errEmptyPart    = httpapi.BadRequest("빈 파트는 보낼 수 없습니다.")
	errPartOrder    = httpapi.Errorf(http.StatusConflict, "파트는 1번부터 순서대로 보내야 합니다.")
	errPartChanged  = httpapi.Errorf(http.StatusConflict, "이미 받은 파트와 내용이 다릅니다.")
	errOverSize     = httpapi.BadRequest("처음에 알린 파일 크기보다 많이 보냈습니다.")
	errNotUploading = httpapi.Errorf(http.StatusConflict, "이미 끝났거나 취소된 업로드입니다.")
	errUnfinished   = httpapi.BadRequest("아직 다 올라오지 않은 업로드입니다.")
	errOtherUpload  = httpapi.Errorf(http.StatusForbidden, "다른 제공사의 업로드는 보거나 쓸 수 없습니다.")
	errNotProviders = httpapi.Errorf(http.StatusForbidden, "제공사는 자기 작품의 회차, 표지, 와이드 이미지만 올릴 수 있습니다.")
)

type uploadView struct {
	ID       string `json:"id"`
	Size     int64  `json:"size"`
	Name     string `json:"name"`
	PartSize int    `json:"partSize"`
	Parts    int    `json:"parts"`
	Received int64  `json:"received"`
	State    string `json:"state"`
	Kind     string `json:"kind,omitempty"`
}

type uploadAnswer struct {
	httpapi.Header200
	Upload uploadView `json:"upload"`
}

// Routes registers the media routes; wrap puts each behind the admin auth.
func (s *Service) Routes(mux httpapi.Mux, prefix string, wrap func(http.Handler) http.Handler) {
	h := func(pattern, path string, limit int64, f httpapi.HandlerFunc) {
		var next http.Handler = httpapi.Wrap(s.log, func(w http.ResponseWriter, r *http.Request) error {
			if s.store == nil {
				return errNoStore
			}
			return f(w, r)
		})
		// Complete and abort take no body: a sent one must be empty or {}
		// (httpapi.NoBody, issue 24 item 10).
		if pattern == http.MethodDelete || strings.HasSuffix(path, "/complete") {
			next = httpapi.NoBody(next)
		}
		mux.Handle(pattern+" "+prefix+path, httpapi.Limit(limit, wrap(next)))
	}
	h("POST", "media/uploads", 1<<16, s.createUpload)
	h("GET", "media/uploads/{id}", 1<<16, s.getUpload)
	h("PUT", "media/uploads/{id}/parts/{n}", MaxPartBytes+1, s.putPart)
	h("POST", "media/uploads/{id}/complete", 1<<16, s.completeUpload)
	h("DELETE", "media/uploads/{id}", 1<<16, s.abortUpload)
	h("POST", "media/jobs", 1<<20, s.createJob)
	h("GET", "media/jobs/{id}", 1<<16, s.getJob)
	h("GET", "media/jobs", 1<<16, s.listJobs)
}

func (s *Service) createUpload(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Size int64  `json:"size"`
		Name string `json:"name"`
	}
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	switch {
	case in.Size <= 0:
		return httpapi.BadRequest("파일 크기(size)를 알려 주세요.")
	case in.Size > MaxUploadBytes:
		return errUploadSize
	case len(in.Name) > 255:
		return httpapi.BadRequest("파일 이름이 너무 깁니다.")
	}
	id := newID()
	now := s.cfg.Now().UTC()
	// A provider's upload is its own: another provider can neither see it
	// nor make a job of it (loadUpload).
	var owner *string
	if p, isProvider := staff.Provider(r.Context()); isProvider {
		owner = &p
	}
	if _, err := s.pool.Exec(r.Context(), `INSERT INTO media_uploads (id, size, name, created_at, updated_at, provider_id) VALUES ($1, $2, $3, $4, $4, $5)`,
		id, in.Size, in.Name, now, owner); err != nil {
		return fmt.Errorf("create upload: %w", err)
	}
	return httpapi.JSON(w, http.StatusCreated, uploadAnswer{httpapi.H200(), uploadView{ID: id, Size: in.Size, Name: in.Name, PartSize: PartSize, State: "uploading"}})
}

func (s *Service) loadUpload(ctx context.Context, q pgx.Tx, id string, lock bool) (*uploadView, error) {
	if !validID(id) {
		return nil, httpapi.ErrNotFound
	}
	sql := `SELECT id, size, name, parts, received, state, kind, provider_id FROM media_uploads WHERE id = $1`
	if lock {
		sql += ` FOR UPDATE`
	}
	var u uploadView
	var owner *string
	var err error
	if q != nil {
		err = q.QueryRow(ctx, sql, id).Scan(&u.ID, &u.Size, &u.Name, &u.Parts, &u.Received, &u.State, &u.Kind, &owner)
	} else {
		err = s.pool.QueryRow(ctx, sql, id).Scan(&u.ID, &u.Size, &u.Name, &u.Parts, &u.Received, &u.State, &u.Kind, &owner)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, httpapi.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load upload %s: %w", id, err)
	}
	// A provider sees only the uploads it started; store staff see all.
	if p, isProvider := staff.Provider(ctx); isProvider && (owner == nil || *owner != p || p == "") {
		return nil, errOtherUpload
	}
	u.PartSize = PartSize
	return &u, nil
}

func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

func (s *Service) getUpload(w http.ResponseWriter, r *http.Request) error {
	u, err := s.loadUpload(r.Context(), nil, r.PathValue("id"), false)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, uploadAnswer{httpapi.H200(), *u})
}

func partKey(id string, n int) string { return "uploads/" + id + "/" + strconv.Itoa(n) }

// putPart takes part n. Parts come in order, so an upload is always a prefix
// of the file and resuming is "send from parts+1": a part out of order is a
// 409 and changes nothing. A part already received may come again (the
// client never saw the answer) if it is the same bytes.
func (s *Service) putPart(w http.ResponseWriter, r *http.Request) error {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > MaxUploadBytes {
		return httpapi.BadRequest("파트 번호는 1 이상의 정수여야 합니다.")
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errPartSize
		}
		return httpapi.BadRequest("파트를 끝까지 받지 못했습니다.")
	}
	if len(data) == 0 {
		return errEmptyPart
	}
	if len(data) > MaxPartBytes {
		return errPartSize
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	ctx := r.Context()
	var out *uploadView
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		u, err := s.loadUpload(ctx, tx, r.PathValue("id"), true)
		if err != nil {
			return err
		}
		if u.State != "uploading" {
			return errNotUploading
		}
		if n <= u.Parts {
			var have string
			if err := tx.QueryRow(ctx, `SELECT sha256 FROM media_upload_parts WHERE upload_id = $1 AND n = $2`, u.ID, n).Scan(&have); err != nil {
				return fmt.Errorf("load part: %w", err)
			}
			if have != hash {
				return errPartChanged
			}
			out = u
			return nil
		}
		if n != u.Parts+1 {
			return errPartOrder
		}
		if u.Received+int64(len(data)) > u.Size {
			return errOverSize
		}
		// The bytes go to the store first: a row never names a part that
		// is not there. A part stored by a request that then failed is
		// overwritten by the resend.
		if err := s.store.PutAt(ctx, partKey(u.ID, n), data, "application/octet-stream"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO media_upload_parts (upload_id, n, size, sha256) VALUES ($1, $2, $3, $4)`, u.ID, n, len(data), hash); err != nil {
			return fmt.Errorf("record part: %w", err)
		}
		u.Parts, u.Received = n, u.Received+int64(len(data))
		if _, err := tx.Exec(ctx, `UPDATE media_uploads SET parts = $2, received = $3, updated_at = $4 WHERE id = $1`, u.ID, u.Parts, u.Received, s.cfg.Now().UTC()); err != nil {
			return fmt.Errorf("update upload: %w", err)
		}
		out = u
		return nil
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, uploadAnswer{httpapi.H200(), *out})
}

// completeUpload puts the parts together and checks the whole file the way
// processing will read it (type by content, picture size, archive paths and
// sizes, EPUB scripts), so bad input is refused here, in the envelope, with
// nothing stored; only then is the original stored under its hash.
func (s *Service) completeUpload(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var out *uploadView
	var refused error
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		u, err := s.loadUpload(ctx, tx, r.PathValue("id"), true)
		if err != nil {
			return err
		}
		if u.State == "complete" {
			out = u // a retried complete
			return nil
		}
		if u.State != "uploading" {
			return errNotUploading
		}
		if u.Received != u.Size {
			return errUnfinished
		}
		data := make([]byte, 0, u.Size)
		for n := 1; n <= u.Parts; n++ {
			part, err := s.store.Get(ctx, partKey(u.ID, n))
			if err != nil {
				return err
			}
			data = append(data, part...)
		}
		kind, err := check(data)
		if err != nil {
			refused = err
			_, err := tx.Exec(ctx, `UPDATE media_uploads SET state = 'aborted', updated_at = $2 WHERE id = $1`, u.ID, s.cfg.Now().UTC())
			return err
		}
		key, err := s.store.Put(ctx, data, "application/octet-stream")
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE media_uploads SET state = 'complete', kind = $2, key = $3, updated_at = $4 WHERE id = $1`,
			u.ID, kind, key, s.cfg.Now().UTC()); err != nil {
			return fmt.Errorf("complete upload: %w", err)
		}
		u.State, u.Kind = "complete", kind
		out = u
		return nil
	})
	if err != nil {
		return err
	}
	// Parts are scratch either way; a failure here leaves them for the
	// next complete or abort to remove.
	s.removeParts(ctx, r.PathValue("id"))
	if refused != nil {
		return refusal(refused)
	}
	return httpapi.JSON(w, http.StatusOK, uploadAnswer{httpapi.H200(), *out})
}

// check reads an upload as processing will, without encoding anything.
func check(data []byte) (string, error) {
	kind, err := process.Sniff(data)
	if err != nil {
		return "", err
	}
	lim := process.DefaultLimits
	switch kind {
	case process.KindZIP:
		pages, err := process.ZipPages(data, lim)
		if err != nil {
			return "", err
		}
		for _, p := range pages {
			if _, _, err := process.Dimensions(p, lim); err != nil {
				return "", err
			}
		}
	case process.KindEPUB:
		book, err := process.EPUB(data, lim, func(int) string { return "" })
		if err != nil {
			return "", err
		}
		for _, p := range book.Images {
			if _, _, err := process.Dimensions(p, lim); err != nil {
				return "", err
			}
		}
	default:
		if _, _, err := process.Dimensions(data, lim); err != nil {
			return "", err
		}
	}
	return kind, nil
}

// refusal turns a processing refusal into the envelope's 4xx.
func refusal(err error) error {
	if r, ok := process.AsRefusal(err); ok {
		code := http.StatusBadRequest
		switch r.Code {
		case process.CodeType:
			code = http.StatusUnsupportedMediaType
		case process.CodePixels, process.CodeTooLarge:
			code = http.StatusRequestEntityTooLarge
		}
		return &httpapi.Error{Code: code, Msg: r.Message, Err: err}
	}
	return err
}

func (s *Service) removeParts(ctx context.Context, id string) {
	if !validID(id) {
		return
	}
	keys, err := s.store.List(ctx, "uploads/"+id+"/")
	if err != nil {
		s.log.Warn("list upload parts", "upload", id, "err", err)
		return
	}
	for _, k := range keys {
		if err := s.store.Delete(ctx, k); err != nil {
			s.log.Warn("remove upload part", "key", k, "err", err)
		}
	}
}

func (s *Service) abortUpload(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		u, err := s.loadUpload(ctx, tx, r.PathValue("id"), true)
		if err != nil {
			return err
		}
		if u.State != "uploading" {
			return errNotUploading
		}
		_, err = tx.Exec(ctx, `UPDATE media_uploads SET state = 'aborted', updated_at = $2 WHERE id = $1`, u.ID, s.cfg.Now().UTC())
		return err
	})
	if err != nil {
		return err
	}
	s.removeParts(ctx, r.PathValue("id"))
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// Job targets.
const (
	TargetVolume = "volume"
	TargetCover  = "cover"
	TargetWide   = "wide"
	TargetBanner = "banner"
	TargetEvent  = "event"
)

type jobView struct {
	ID       int64     `json:"id"`
	Target   string    `json:"target"`
	PID      string    `json:"pid,omitempty"`
	No       int       `json:"no,omitempty"`
	RefID    int64     `json:"refId,omitempty"`
	State    string    `json:"state"`
	Reason   string    `json:"reason,omitempty"`
	Attempts int       `json:"attempts"`
	URL      string    `json:"url,omitempty"`
	Created  time.Time `json:"createdAt"`
	Updated  time.Time `json:"updatedAt"`
}

type jobAnswer struct {
	httpapi.Header200
	Job jobView `json:"job"`
}

func (s *Service) createJob(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Target  string   `json:"target"`
		PID     string   `json:"pid"`
		No      int      `json:"no"`
		ID      int64    `json:"id"`
		Uploads []string `json:"uploads"`
	}
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	if len(in.Uploads) == 0 {
		return httpapi.BadRequest("처리할 업로드(uploads)를 알려 주세요.")
	}
	if len(in.Uploads) > MaxJobUploads {
		return httpapi.BadRequest("한 번에 %d개까지 처리할 수 있습니다.", MaxJobUploads)
	}
	ctx := r.Context()
	var job jobView
	// A job replaces what readers see (a volume's pages, a cover): it is a
	// staff change with its audit row, in its transaction.
	err := staff.AuditedTx(ctx, s.pool, func(tx pgx.Tx, audit func(staff.Entry) error) error {
		if _, isProvider := staff.Provider(ctx); isProvider {
			if in.Target != TargetVolume && in.Target != TargetCover && in.Target != TargetWide {
				return errNotProviders
			}
			if err := staff.OwnWork(ctx, tx, in.PID); err != nil {
				return err
			}
		}
		var section string
		switch in.Target {
		case TargetVolume:
			if !contract.ValidKeyID(in.PID) || in.No <= 0 {
				return httpapi.BadRequest("작품(pid)과 회차(no)를 알려 주세요.")
			}
			err := tx.QueryRow(ctx, `SELECT w.section FROM volumes v JOIN works w USING (pid) WHERE v.pid = $1 AND v.no = $2`, in.PID, in.No).Scan(&section)
			if errors.Is(err, pgx.ErrNoRows) {
				return httpapi.Errorf(http.StatusNotFound, "그런 회차가 없습니다.")
			}
			if err != nil {
				return fmt.Errorf("load volume: %w", err)
			}
			in.ID = 0
		case TargetCover, TargetWide:
			if !contract.ValidKeyID(in.PID) {
				return httpapi.BadRequest("작품(pid)을 알려 주세요.")
			}
			var one int
			if err := tx.QueryRow(ctx, `SELECT 1 FROM works WHERE pid = $1`, in.PID).Scan(&one); err != nil {
				if errors.Is(err, pgx.ErrNoRows) {
					return httpapi.Errorf(http.StatusNotFound, "그런 작품이 없습니다.")
				}
				return fmt.Errorf("load work: %w", err)
			}
			in.No, in.ID = 0, 0
		case TargetBanner, TargetEvent:
			table, col := "banners", "id"
			if in.Target == TargetEvent {
				table, col = "events", "eid"
			}
			var one int
			if err := tx.QueryRow(ctx, `SELECT 1 FROM `+table+` WHERE `+col+` = $1`, in.ID).Scan(&one); err != nil {
				if errors.Is(err, pgx.ErrNoRows) {
					return httpapi.Errorf(http.StatusNotFound, "그런 배너나 이벤트가 없습니다.")
				}
				return fmt.Errorf("load %s: %w", table, err)
			}
			in.PID, in.No = "", 0
		default:
			return httpapi.BadRequest("target은 volume, cover, wide, banner, event 중 하나여야 합니다.")
		}
		keys := make([]string, len(in.Uploads))
		kinds := make([]string, len(in.Uploads))
		for i, id := range in.Uploads {
			u, err := s.loadUpload(ctx, tx, id, false)
			if errors.Is(err, errOtherUpload) {
				return err
			}
			if err != nil {
				return httpapi.Errorf(http.StatusNotFound, "그런 업로드가 없습니다.")
			}
			if u.State != "complete" {
				return errUnfinished
			}
			if err := tx.QueryRow(ctx, `SELECT key FROM media_uploads WHERE id = $1`, id).Scan(&keys[i]); err != nil {
				return fmt.Errorf("load upload key: %w", err)
			}
			kinds[i] = u.Kind
		}
		if err := fits(in.Target, section, kinds); err != nil {
			return err
		}
		now := s.cfg.Now().UTC()
		job = jobView{Target: in.Target, PID: in.PID, No: in.No, RefID: in.ID, State: "queued", Created: now, Updated: now}
		if err := tx.QueryRow(ctx, `INSERT INTO media_jobs (target, pid, no, ref_id, originals, kinds, not_before, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $7) RETURNING id`, in.Target, in.PID, in.No, in.ID, keys, kinds, now).Scan(&job.ID); err != nil {
			return err
		}
		return audit(staff.Entry{Action: "POST media/jobs", Target: jobTarget(in.Target, in.PID, in.No, in.ID),
			After: map[string]any{"job": job.ID, "uploads": in.Uploads, "kinds": kinds}})
	})
	if err != nil {
		return err
	}
	s.Wake()
	return httpapi.JSON(w, http.StatusAccepted, jobAnswer{httpapi.H200(), job})
}

// jobTarget names what a job replaces, as the audit trail's targets do.
func jobTarget(target, pid string, no int, id int64) string {
	switch target {
	case TargetVolume:
		return fmt.Sprintf("volume:%s/%d", pid, no)
	case TargetCover, TargetWide:
		return target + ":" + pid
	}
	return fmt.Sprintf("%s:%d", target, id)
}

// fits checks that the files suit the target: a picture for a cover, and
// for a volume ordered pictures, one ZIP/CBZ, or one EPUB of a novel.
func fits(target, section string, kinds []string) error {
	images := 0
	for _, k := range kinds {
		if process.IsImage(k) {
			images++
		}
	}
	if target != TargetVolume {
		if len(kinds) != 1 || images != 1 {
			return httpapi.BadRequest("표지와 배너에는 이미지 한 장을 올려 주세요.")
		}
		return nil
	}
	switch {
	case images == len(kinds):
		return nil
	case len(kinds) == 1 && kinds[0] == process.KindZIP:
		return nil
	case len(kinds) == 1 && kinds[0] == process.KindEPUB:
		if section != "EB" {
			return httpapi.BadRequest("EPUB은 소설에만 올릴 수 있습니다.")
		}
		return nil
	}
	return httpapi.BadRequest("회차에는 이미지 여러 장, ZIP(CBZ) 하나, EPUB 하나 중 하나를 올려 주세요.")
}

const jobColumns = `id, target, pid, no, ref_id, state, reason, attempts, result, created_at, updated_at`

func scanJob(row pgx.Row) (jobView, error) {
	var j jobView
	var result string
	err := row.Scan(&j.ID, &j.Target, &j.PID, &j.No, &j.RefID, &j.State, &j.Reason, &j.Attempts, &result, &j.Created, &j.Updated)
	if j.State == "done" {
		j.URL = result
	}
	j.Created, j.Updated = j.Created.UTC(), j.Updated.UTC()
	return j, err
}

func (s *Service) getJob(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return httpapi.ErrNotFound
	}
	j, err := scanJob(s.pool.QueryRow(r.Context(), `SELECT `+jobColumns+` FROM media_jobs WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return httpapi.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("load job: %w", err)
	}
	// A provider sees the jobs of its own works' episodes and pictures only.
	if _, isProvider := staff.Provider(r.Context()); isProvider {
		if j.Target != TargetVolume && j.Target != TargetCover && j.Target != TargetWide {
			return staff.ErrOtherWork
		}
		if err := staff.OwnWork(r.Context(), s.pool, j.PID); err != nil {
			return err
		}
	}
	return httpapi.JSON(w, http.StatusOK, jobAnswer{httpapi.H200(), j})
}

func (s *Service) listJobs(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	pid := q.Get("pid")
	if !contract.ValidKeyID(pid) {
		return httpapi.BadRequest("작품(pid)을 알려 주세요.")
	}
	no := 0
	if v := q.Get("no"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return httpapi.BadRequest("회차(no)는 1 이상의 정수여야 합니다.")
		}
		no = n
	}
	if err := staff.OwnWork(r.Context(), s.pool, pid); err != nil {
		return err
	}
	// A job for many volumes names its first; the others find it through
	// media_job_volumes.
	rows, err := s.pool.Query(r.Context(), `SELECT `+jobColumns+` FROM media_jobs
		WHERE (pid = $1 AND ($2 = 0 OR no = $2))
		OR id IN (SELECT job_id FROM media_job_volumes WHERE pid = $1 AND ($2 = 0 OR no = $2))
		ORDER BY id DESC LIMIT 50`, pid, no)
	if err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	jobs := []jobView{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return fmt.Errorf("scan job: %w", err)
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Jobs []jobView `json:"jobs"`
	}{httpapi.H200(), jobs})
}
