package member

import (
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// Routes of the notification inbox (issue 34 item 3). The push worker
// writes the items (writer/push, at a release's fan-out); these read them
// and mark them read.
const (
	InboxPath       = "/home/api/v1/users/inbox"
	InboxUnreadPath = InboxPath + "/unread"
	InboxReadPath   = InboxPath + "/read"
)

const inboxPageSize = 20

// maxInboxRead bounds the ids one mark-read call names (a page is 20).
const maxInboxRead = 200

// InboxItem is one notification: a new work (kind "work", its first
// volume) or a new episode ("episode") of a work whose alarm the member has
// on or whose author they follow.
type InboxItem struct {
	ID        int64     `json:"id"`
	Kind      string    `json:"kind"`
	PID       string    `json:"pid"`
	No        int       `json:"no"`
	Title     string    `json:"title"`
	IsAdult   bool      `json:"isAdult"`
	ReleaseAt time.Time `json:"releaseAt"`
	Read      bool      `json:"read"`
}

// inboxPage is a page of the inbox with the member's unread count (the
// sidebar's badge and the page's heading read it from the same answer).
type inboxPage struct {
	contract.InlinePagedList[InboxItem]
	Unread int `json:"unread"`
}

// inboxAudience reads the session member and whether their audience may
// not see adult works now (the channel header and the session's level, as
// every member list decides): an adult work's item stays in the table and
// is left out of every answer while so.
func (s *Service) inboxAudience(r *http.Request) (uid int64, teen bool, err error) {
	uid, err = s.user(r)
	if err != nil {
		return 0, false, err
	}
	teen, err = s.teenView(r, httpapi.Params{"channel": r.URL.Query().Get("channel")})
	return uid, teen, err
}

func (s *Service) unreadCount(r *http.Request, uid int64, teen bool) (int, error) {
	var n int
	if err := s.pool.QueryRow(r.Context(), `SELECT count(*) FROM inbox WHERE uid = $1 AND read_at IS NULL AND (NOT $2 OR NOT adult)`,
		uid, teen).Scan(&n); err != nil {
		return 0, fmt.Errorf("count unread inbox of %d: %w", uid, err)
	}
	return n, nil
}

// inboxList pages the member's inbox, newest first:
// GET /home/api/v1/users/inbox?page=N.
func (s *Service) inboxList(w http.ResponseWriter, r *http.Request) error {
	uid, teen, err := s.inboxAudience(r)
	if err != nil {
		return err
	}
	page, err := httpapi.Params{"page": r.URL.Query().Get("page")}.Int("page", 1)
	if err != nil || page < 1 || page > 10000 {
		return httpapi.BadRequest("페이지(page)는 양의 정수여야 합니다.")
	}
	ctx := r.Context()
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM inbox WHERE uid = $1 AND (NOT $2 OR NOT adult)`, uid, teen).Scan(&total); err != nil {
		return fmt.Errorf("count inbox of %d: %w", uid, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT id, kind, pid, no, title, adult, release_at, read_at IS NOT NULL FROM inbox
		WHERE uid = $1 AND (NOT $2 OR NOT adult) ORDER BY id DESC LIMIT $3 OFFSET $4`, uid, teen, inboxPageSize, (page-1)*inboxPageSize)
	if err != nil {
		return fmt.Errorf("list inbox of %d: %w", uid, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (InboxItem, error) {
		var it InboxItem
		err := row.Scan(&it.ID, &it.Kind, &it.PID, &it.No, &it.Title, &it.IsAdult, &it.ReleaseAt, &it.Read)
		it.ReleaseAt = it.ReleaseAt.UTC()
		return it, err
	})
	if err != nil {
		return fmt.Errorf("list inbox of %d: %w", uid, err)
	}
	unread, err := s.unreadCount(r, uid, teen)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, inboxPage{contract.NewInlinePagedList(list, page, inboxPageSize, total), unread})
}

// inboxUnread answers the member's unread count: GET /home/api/v1/users/inbox/unread.
func (s *Service) inboxUnread(w http.ResponseWriter, r *http.Request) error {
	uid, teen, err := s.inboxAudience(r)
	if err != nil {
		return err
	}
	n, err := s.unreadCount(r, uid, teen)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Unread int `json:"unread"`
	}{ok(), n})
}

// inboxRead marks items read: POST /home/api/v1/users/inbox/read with
// {"ids":[...]} or {"all":true}. Only the member's own items change (an id
// of another member's is ignored, not refused: it tells nothing of theirs);
// an adult item hidden from the audience is not marked by "all" either, so
// it is still new when it can be seen. Answer: the unread count after.
func (s *Service) inboxRead(w http.ResponseWriter, r *http.Request) error {
	uid, teen, err := s.inboxAudience(r)
	if err != nil {
		return err
	}
	var body struct {
		IDs []int64 `json:"ids"`
		All bool    `json:"all"`
	}
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	if body.All == (len(body.IDs) > 0) {
		return httpapi.BadRequest("읽음으로 표시할 알림 번호(ids) 또는 전체(all) 중 하나를 보내 주세요.")
	}
	if len(body.IDs) > maxInboxRead {
		return httpapi.BadRequest("알림 번호(ids)는 한 번에 %d개까지 보낼 수 있습니다.", maxInboxRead)
	}
	for _, id := range body.IDs {
		if id <= 0 {
			return httpapi.BadRequest("알림 번호(ids)가 올바르지 않습니다.")
		}
	}
	if _, err := s.pool.Exec(r.Context(), `UPDATE inbox SET read_at = $4 WHERE uid = $1 AND read_at IS NULL
		AND (NOT $2 OR NOT adult) AND ($3::bigint[] IS NULL OR id = ANY($3))`, uid, teen, body.IDs, s.now()); err != nil {
		return fmt.Errorf("mark inbox of %d read: %w", uid, err)
	}
	n, err := s.unreadCount(r, uid, teen)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Unread int `json:"unread"`
	}{ok(), n})
}
