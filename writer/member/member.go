// Package member serves the member features of the writer: zzim of
// works and authors, alarms, reviews (likes, reports, blocks), recently viewed,
// the reading place, episode comments and hearts, interest genres, the side info (user-get-info), the
// tracking profile, CS Q&A, award votes and the web version code.
//
// Identity always comes from the session (writer/auth); a seed payload's uid
// that is not the session's is answered 403 and nothing changes. Changes that
// readers see (zzim counts, reviews, award votes) go out through the outbox.
package member

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/writer/auth"
	"storefront/writer/httpapi"
	"storefront/writer/money"
)

// Money is what member needs of writer/money.
type Money interface {
	SideInfo(ctx context.Context, uid int64, channel string) (*money.SideInfo, error)
	GiftBox(ctx context.Context, uid int64) ([]money.Gift, error)
	Status(ctx context.Context, uid int64, pid string) (*money.SalesStatus, error)
	Charges(ctx context.Context, uid int64, limit int) ([]money.Charge, error)
	Authorize(ctx context.Context, uid int64, pid string, vol int, channel string) (*money.DownloadAuth, error)
}

// Service serves the member routes.
type Service struct {
	pool  *pgxpool.Pool
	auth  *auth.Auth
	money Money
	now   func() time.Time
	log   *slog.Logger
	// Changed is called after a committed change that enqueued outbox rows.
	Changed func()
	// CommentsPerMinute bounds a member's comments and replies (per node).
	CommentsPerMinute int
	commentLimit      *httpapi.Limiter
}

// New makes the member service.
func New(pool *pgxpool.Pool, a *auth.Auth, m Money, now func() time.Time, log *slog.Logger) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{pool: pool, auth: a, money: m, now: now, log: log, Changed: func() {},
		CommentsPerMinute: DefaultCommentsPerMinute, commentLimit: httpapi.NewLimiter(DefaultCommentsPerMinute)}
}

// Seed paths (§7).
const (
	UserInfoPrefix = "/protocol/appapi/mb/user/info/"
	WebVersionPath = "/protocol/appapi/mb/etc/version/web-version-code"
)

// Routes registers the member routes on mux (behind auth.Middleware).
func (s *Service) Routes(mux httpapi.Mux) {
	h := func(pattern string, f httpapi.HandlerFunc) { mux.Handle(pattern, httpapi.Wrap(s.log, f)) }
	// Routes that take no body: a sent one must be empty or {} (httpapi.NoBody).
	nb := func(pattern string, f httpapi.HandlerFunc) {
		mux.Handle(pattern, httpapi.NoBody(httpapi.Wrap(s.log, f)))
	}
	h("POST "+UserInfoPrefix+"zzim-add", s.zzimAdd)
	h("POST "+UserInfoPrefix+"zzim-del", s.zzimDel)
	h("POST "+UserInfoPrefix+"zzim-delete", s.zzimDel)
	h("POST "+UserInfoPrefix+"zzim-list", s.zzimList)
	h("POST "+UserInfoPrefix+"alarm-set", s.alarmSet)
	h("POST "+UserInfoPrefix+"user-get-info", s.userGetInfo)
	h("POST "+TicketInfoPath, s.ticketInfo)
	h("POST "+ChargeBannerPath, s.chargeBanner)
	nb("POST "+WebVersionPath, s.webVersion)
	h("GET /iam/v2/user-info", s.trackingProfile)

	h("POST /home/api/v1/products/{pid}/reviews", s.reviewAdd)
	h("GET /home/api/v1/products/{pid}/reviews/state", s.reviewState)
	nb("DELETE /home/api/v1/reviews/{id}", s.reviewDelete)
	nb("POST /home/api/v1/reviews/{id}/like", s.reviewLike)
	h("POST /home/api/v1/reviews/{id}/report", s.reviewReport)
	nb("POST /home/api/v1/reviews/{id}/block", s.reviewBlock)
	nb("DELETE /home/api/v1/reviews/{id}/block", s.reviewUnblock)

	// Episode comments (comments.go): the public lists are the edge's reads.
	h("POST /home/api/v1/products/{pid}/episodes/{vol}/comments", s.commentPost)
	h("GET /home/api/v1/products/{pid}/episodes/{vol}/comments/state", s.commentState)
	nb("POST /home/api/v1/products/{pid}/episodes/{vol}/heart", s.episodeHeart)
	nb("DELETE /home/api/v1/products/{pid}/episodes/{vol}/heart", s.episodeHeart)
	nb("DELETE /home/api/v1/comments/{id}", s.commentDelete)
	nb("POST /home/api/v1/comments/{id}/like", s.commentLike)
	nb("DELETE /home/api/v1/comments/{id}/like", s.commentLike)
	h("POST /home/api/v1/comments/{id}/report", s.commentReport)

	h("GET /home/api/v1/users/recent", s.recentList)
	h("POST /home/api/v1/users/recent", s.recentAdd)
	h("DELETE /home/api/v1/users/recent", s.recentDelete)
	h("POST /home/api/v1/users/recent/delete", s.recentDelete)
	h("GET /home/api/v1/users/reading-place/{pid}", s.placeGet)
	h("PUT /home/api/v1/users/reading-place/{pid}", s.placePut)
	h("POST /home/api/v1/users/reading-place/{pid}", s.placePut)
	h("GET /home/api/v1/users/library", s.libraryList)
	h("GET "+InboxPath, s.inboxList)
	h("GET "+InboxUnreadPath, s.inboxUnread)
	h("POST "+InboxReadPath, s.inboxRead)

	h("GET /home/api/v1/users/interests/genres", s.genresGet)
	h("GET /home/api/v1/users/interests/genres/exists", s.genresExists)
	nb("POST /home/api/v1/users/interests/genres/rejection", s.genresReject)
	h("PUT /home/api/v1/users/interests/genres", s.genresPut)

	h("POST /home/api/v1/cs/qna", s.qnaAdd)
	h("GET /home/api/v1/cs/qna", s.qnaList)
	h("POST /protocol/appapi/mb/helpdesk/qna_list", s.qnaList)

	h("POST /pc/api/awards/{eid}/vote", s.awardVote)
	h("GET /pc/api/awards/{eid}/votes", s.awardMyVotes)
}

// tx runs f in a transaction and wakes the relay after commit.
func (s *Service) tx(ctx context.Context, f func(pgx.Tx) error) error {
	if err := pgx.BeginFunc(ctx, s.pool, f); err != nil {
		return err
	}
	s.Changed()
	return nil
}

// user returns the session's uid or 401.
func (s *Service) user(r *http.Request) (int64, error) {
	uid, ok := s.auth.UserID(r)
	if !ok {
		return 0, httpapi.ErrUnauthorized
	}
	return uid, nil
}

// sectionOf maps the seed's section names (소설, 만화, 웹툰) and codes.
func sectionOf(v string) (string, bool) {
	switch strings.TrimSpace(v) {
	case "소설", "EB", "eb", "nv", "novel":
		return contract.SectionNovel, true
	case "만화", "CM", "cm", "comic":
		return contract.SectionComic, true
	case "웹툰", "WT", "wt", "webtoon":
		return contract.SectionWebtoon, true
	}
	return "", false
}

type work struct {
	section string
	age     int
	hidden  bool
}

func loadWork(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, pid string) (*work, error) {
	if !contract.ValidKeyID(pid) {
		return nil, httpapi.BadRequest("작품 ID(pid)가 올바르지 않습니다.")
	}
	var w work
	err := q.QueryRow(ctx, `SELECT section, age, hidden FROM works WHERE pid = $1`, pid).Scan(&w.section, &w.age, &w.hidden)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && w.hidden) {
		return nil, httpapi.Errorf(http.StatusNotFound, "작품을 찾을 수 없습니다.")
	}
	if err != nil {
		return nil, fmt.Errorf("load work %s: %w", pid, err)
	}
	return &w, nil
}

// userLevel is the session user's adult level (0 for visitors).
func (s *Service) userLevel(r *http.Request) (int, error) {
	u, err := s.auth.CurrentUser(r)
	if err != nil {
		return 0, err
	}
	return u.AdultLevel(s.now()), nil
}

// teenView reports whether a member's list hides adult works. The payload's
// channel is checked for form and ignored: the session's level and the
// X-Channel header alone decide, as at the edge, so an app reader writing
// channel=AW never sees adult works.
func (s *Service) teenView(r *http.Request, p httpapi.Params) (bool, error) {
	if err := payloadChannel(p); err != nil {
		return false, err
	}
	channel, err := httpapi.Channel(r)
	if err != nil {
		return false, err
	}
	level, err := s.userLevel(r)
	if err != nil {
		return false, err
	}
	return !contract.AdultContent(level, contract.AdultChannel(channel)), nil
}

// payloadChannel checks a seed payload's channel: one of the seed's codes or
// absent. It is never used (httpapi.Channel: the header decides).
func payloadChannel(p httpapi.Params) error {
	if !httpapi.KnownChannel(strings.ToUpper(strings.TrimSpace(p["channel"]))) {
		return httpapi.BadRequest("알 수 없는 채널입니다. (channel)")
	}
	return nil
}

func ok() httpapi.Header200 { return httpapi.H200() }
