package member

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"storefront/contract"
	"storefront/writer/httpapi"
	"storefront/writer/money"
	"storefront/writer/outbox"
)

// Episode comments (issue 36). Who may write decides as the viewer does:
// money.Authorize, the call that hands out the content token, says whether
// the member may read the episode fully (free, bought, rented; adult works
// only to verified adults outside the teen channel); the buyer badge is a
// bought or rented episode. A post carries an Idempotency-Key like a
// purchase: the same key finds the comment it stored, never a second one.
// Every change enqueues the episode's head and the page of the comment it
// touches (contract/comments.go); reports are not published: a moderator
// decides (commentsadmin.go).

// DefaultCommentsPerMinute bounds the comments (and replies) of one member.
const DefaultCommentsPerMinute = 6

// Messages readers see.
const (
	msgCommentEmpty    = "댓글 내용을 입력해 주세요."
	msgCommentNotFound = "댓글을 찾을 수 없습니다."
	msgCommentRate     = "댓글은 1분에 %d개까지 쓸 수 있습니다. 잠시 후 다시 시도해 주세요."
	msgCommentReader   = "이 회차를 볼 수 있는 회원만 댓글을 쓸 수 있습니다."
	msgCommentKeyReuse = "같은 요청 키(Idempotency-Key)가 다른 댓글에 이미 사용되었습니다."
)

type commentRequest struct {
	Body      string `json:"body"`
	IsSpoiler bool   `json:"isSpoiler"`
	ParentID  int64  `json:"parentId"`
}

// episodePath reads {pid} and {vol} of the path.
func episodePath(r *http.Request) (string, int, error) {
	pid := r.PathValue("pid")
	if !contract.ValidKeyID(pid) {
		return "", 0, httpapi.BadRequest("작품 ID(pid)가 올바르지 않습니다.")
	}
	vol, err := strconv.Atoi(r.PathValue("vol"))
	if err != nil || vol < 1 || vol > maxVolNo {
		return "", 0, httpapi.BadRequest("회차 번호(vol)는 1부터 %d까지입니다.", maxVolNo)
	}
	return pid, vol, nil
}

// idemKey checks the post's Idempotency-Key (the rules of writer/money).
func idemKey(r *http.Request) (string, error) {
	key := r.Header.Get(money.IdempotencyHeader)
	if key == "" {
		return "", httpapi.BadRequest("요청 키(Idempotency-Key 헤더)가 필요합니다.")
	}
	if len(key) > 128 {
		return "", httpapi.BadRequest("요청 키(Idempotency-Key)는 128자를 넘을 수 없습니다.")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return "", httpapi.BadRequest("요청 키(Idempotency-Key)에는 영문, 숫자, 기호만 쓸 수 있습니다.")
		}
	}
	return key, nil
}

// blank reports whether s has nothing but spaces (a comment must say something).
func blank(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) }) < 0
}

// mayRead asks writer/money whether uid may read the episode (as the viewer
// does), and whether it is theirs by purchase or rental (the buyer badge).
func (s *Service) mayRead(r *http.Request, uid int64, pid string, vol int) (buyer bool, err error) {
	channel, err := httpapi.Channel(r)
	if err != nil {
		return false, err
	}
	a, err := s.money.Authorize(r.Context(), uid, pid, vol, channel)
	if err != nil {
		return false, err
	}
	if !a.IsAuth {
		return false, httpapi.Errorf(http.StatusForbidden, msgCommentReader)
	}
	return a.AuthType == money.BuyBuy || a.AuthType == money.BuyRent, nil
}

type storedPost struct {
	id        int64
	pid       string
	vol       int
	parent    int64
	body      string
	spoiler   bool
	buyer     bool
	published bool
}

// postAnswer is the answer of a post and of its retries.
type postAnswer struct {
	httpapi.Header200
	ID       int64 `json:"id"`
	IsBuyer  bool  `json:"isBuyer"`
	Replayed bool  `json:"replayed"`
}

// storedByKey finds the comment uid posted under key, or nil.
func (s *Service) storedByKey(ctx context.Context, uid int64, key string) (*storedPost, error) {
	var p storedPost
	var parent *int64
	err := s.pool.QueryRow(ctx, `SELECT id, pid, vol, parent_id, body, is_spoiler, is_buyer FROM episode_comments WHERE uid = $1 AND idem_key = $2`,
		uid, key).Scan(&p.id, &p.pid, &p.vol, &parent, &p.body, &p.spoiler, &p.buyer)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find comment by key: %w", err)
	}
	if parent != nil {
		p.parent = *parent
	}
	return &p, nil
}

// replay answers a retried post: the same comment, or 409 when the key was
// used for another one.
func replay(w http.ResponseWriter, p *storedPost, pid string, vol int, req commentRequest) error {
	if p.pid != pid || p.vol != vol || p.parent != req.ParentID || p.body != req.Body || p.spoiler != req.IsSpoiler {
		return httpapi.Errorf(http.StatusConflict, msgCommentKeyReuse)
	}
	return httpapi.JSON(w, http.StatusCreated, postAnswer{ok(), p.id, p.buyer, true})
}

type queryRower interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}

// checkParent refuses a reply to a comment that is not a visible top-level
// comment of the episode, or that has its replies' fill.
func checkParent(ctx context.Context, q queryRower, parent int64, pid string, vol int) error {
	var ppid string
	var pvol, replies int
	var pparent *int64
	var gone bool
	err := q.QueryRow(ctx, `SELECT pid, vol, parent_id, deleted OR hidden, reply_cnt FROM episode_comments WHERE id = $1`,
		parent).Scan(&ppid, &pvol, &pparent, &gone, &replies)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && (gone || ppid != pid || pvol != vol)) {
		return httpapi.Errorf(http.StatusNotFound, "답글을 달 댓글을 찾을 수 없습니다.")
	}
	if err != nil {
		return fmt.Errorf("load parent comment: %w", err)
	}
	if pparent != nil {
		return httpapi.BadRequest("답글에는 답글을 달 수 없습니다.")
	}
	if replies >= contract.CommentMaxReplies {
		return httpapi.Errorf(http.StatusConflict, "답글은 한 댓글에 %d개까지 달 수 있습니다.", contract.CommentMaxReplies)
	}
	return nil
}

// errKeyRace: another request with the same key committed first.
var errKeyRace = errors.New("idempotency key taken meanwhile")

// commentPost writes a comment or a reply. Answer 201: id, isBuyer.
func (s *Service) commentPost(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	pid, vol, err := episodePath(r)
	if err != nil {
		return err
	}
	key, err := idemKey(r)
	if err != nil {
		return err
	}
	var req commentRequest
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch n := len([]rune(req.Body)); {
	case blank(req.Body):
		return httpapi.BadRequest(msgCommentEmpty)
	case n > contract.CommentMaxRunes:
		return httpapi.BadRequest("댓글은 %d자까지 쓸 수 있습니다. (%d자)", contract.CommentMaxRunes, n)
	case req.ParentID < 0:
		return httpapi.BadRequest("답글을 달 댓글 번호(parentId)가 올바르지 않습니다.")
	}
	ctx := r.Context()
	// A retry is answered before the rate limit: it adds nothing.
	if p, err := s.storedByKey(ctx, uid, key); err != nil || p != nil {
		if err != nil {
			return err
		}
		return replay(w, p, pid, vol, req)
	}
	buyer, err := s.mayRead(r, uid, pid, vol)
	if err != nil {
		return err
	}
	if req.ParentID > 0 {
		// Checked again under the parent's lock; here so that a refused
		// reply does not use up the member's rate.
		if err := checkParent(ctx, s.pool, req.ParentID, pid, vol); err != nil {
			return err
		}
	}
	// Only a post that would be stored counts against the rate.
	if !s.commentLimit.Allow(strconv.FormatInt(uid, 10), s.now()) {
		return httpapi.Errorf(http.StatusTooManyRequests, msgCommentRate, s.CommentsPerMinute)
	}
	var id int64
	err = s.tx(ctx, func(tx pgx.Tx) error {
		var page int
		if req.ParentID > 0 {
			// Lock the parent first: its reply count and state hold until commit.
			if _, err := tx.Exec(ctx, `SELECT 1 FROM episode_comments WHERE id = $1 FOR UPDATE`, req.ParentID); err != nil {
				return fmt.Errorf("lock parent comment: %w", err)
			}
			if err := checkParent(ctx, tx, req.ParentID, pid, vol); err != nil {
				return err
			}
			var seq int
			if err := tx.QueryRow(ctx, `SELECT seq FROM episode_comments WHERE id = $1`, req.ParentID).Scan(&seq); err != nil {
				return fmt.Errorf("parent comment's page: %w", err)
			}
			page = (seq - 1) / contract.CommentPageSize
			err = tx.QueryRow(ctx, `INSERT INTO episode_comments (pid, vol, uid, parent_id, body, is_spoiler, is_buyer, idem_key, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (uid, idem_key) DO NOTHING RETURNING id`,
				pid, vol, uid, req.ParentID, req.Body, req.IsSpoiler, buyer, key, s.now()).Scan(&id)
			if errors.Is(err, pgx.ErrNoRows) {
				return errKeyRace
			}
			if err != nil {
				return fmt.Errorf("insert reply: %w", err)
			}
			if _, err := tx.Exec(ctx, `UPDATE episode_comments SET reply_cnt = reply_cnt + 1, rev = nextval('comment_rev') WHERE id = $1`, req.ParentID); err != nil {
				return fmt.Errorf("count reply: %w", err)
			}
			if _, err := tx.Exec(ctx, `UPDATE episode_comment_meta SET comment_cnt = comment_cnt + 1 WHERE pid = $1 AND vol = $2`, pid, vol); err != nil {
				return fmt.Errorf("count comment: %w", err)
			}
		} else {
			// The episode's row serializes its top-level comments: each
			// takes the next number, which places it on its page for good.
			var seq int
			if err := tx.QueryRow(ctx, `INSERT INTO episode_comment_meta AS m (pid, vol, next_seq, comment_cnt) VALUES ($1, $2, 2, 1)
				ON CONFLICT (pid, vol) DO UPDATE SET next_seq = m.next_seq + 1, comment_cnt = m.comment_cnt + 1
				RETURNING next_seq - 1`, pid, vol).Scan(&seq); err != nil {
				return fmt.Errorf("number comment: %w", err)
			}
			page = (seq - 1) / contract.CommentPageSize
			err := tx.QueryRow(ctx, `INSERT INTO episode_comments (pid, vol, uid, seq, body, is_spoiler, is_buyer, idem_key, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (uid, idem_key) DO NOTHING RETURNING id`,
				pid, vol, uid, seq, req.Body, req.IsSpoiler, buyer, key, s.now()).Scan(&id)
			if errors.Is(err, pgx.ErrNoRows) {
				return errKeyRace
			}
			if err != nil {
				return fmt.Errorf("insert comment: %w", err)
			}
		}
		return outbox.Doc(ctx, tx, contract.CommentHeadKey(pid, vol), contract.CommentPageKey(pid, vol, page))
	})
	if errors.Is(err, errKeyRace) {
		p, err := s.storedByKey(ctx, uid, key)
		if err != nil {
			return err
		}
		if p == nil {
			return fmt.Errorf("comment of key %q gone after a conflict", key)
		}
		return replay(w, p, pid, vol, req)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" {
		// The work was deleted between the check and the insert.
		return httpapi.Errorf(http.StatusNotFound, "작품을 찾을 수 없습니다.")
	}
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, postAnswer{ok(), id, buyer, false})
}

// commentRow is what a change of a comment needs of it.
type commentRow struct {
	id      int64
	pid     string
	vol     int
	uid     int64
	parent  int64
	seq     int
	replies int
	likes   int
	gone    bool // deleted or hidden
	hidden  bool
}

// page is the index of the page holding the comment (a reply: its parent's).
func (c *commentRow) page(ctx context.Context, tx pgx.Tx) (int, error) {
	seq := c.seq
	if c.parent != 0 {
		if err := tx.QueryRow(ctx, `SELECT seq FROM episode_comments WHERE id = $1`, c.parent).Scan(&seq); err != nil {
			return 0, fmt.Errorf("parent of comment %d: %w", c.id, err)
		}
	}
	return (seq - 1) / contract.CommentPageSize, nil
}

// lockComment loads and locks comment id for a change; a deleted one is 404
// (a hidden one is found: the moderator may show it again).
func lockComment(ctx context.Context, tx pgx.Tx, id int64) (*commentRow, error) {
	var c commentRow
	var parent *int64
	var deleted bool
	err := tx.QueryRow(ctx, `SELECT id, pid, vol, uid, parent_id, seq, reply_cnt, like_cnt, deleted, hidden FROM episode_comments WHERE id = $1 FOR UPDATE`,
		id).Scan(&c.id, &c.pid, &c.vol, &c.uid, &parent, &c.seq, &c.replies, &c.likes, &deleted, &c.hidden)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && deleted) {
		return nil, httpapi.Errorf(http.StatusNotFound, msgCommentNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load comment %d: %w", id, err)
	}
	if parent != nil {
		c.parent = *parent
	}
	c.gone = deleted || c.hidden
	return &c, nil
}

// commentID reads {id} of the path.
func commentID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, httpapi.BadRequest("댓글 번호는 양의 정수여야 합니다.")
	}
	return id, nil
}

// touched bumps the comment's rev (and its parent's: a page's version is
// its top-level comments' largest rev) and enqueues its head and page.
func touched(ctx context.Context, tx pgx.Tx, c *commentRow) error {
	if _, err := tx.Exec(ctx, `UPDATE episode_comments SET rev = nextval('comment_rev') WHERE id = $1 OR id = $2`, c.id, c.parent); err != nil {
		return fmt.Errorf("bump comment %d: %w", c.id, err)
	}
	page, err := c.page(ctx, tx)
	if err != nil {
		return err
	}
	return outbox.Doc(ctx, tx, contract.CommentHeadKey(c.pid, c.vol), contract.CommentPageKey(c.pid, c.vol, page))
}

// removeVisible takes a comment that was visible out of the counts: a
// top-level one with its replies (they go with it), a reply from its parent.
func removeVisible(ctx context.Context, tx pgx.Tx, c *commentRow) error {
	n := 1
	if c.parent == 0 {
		n += c.replies
	} else if _, err := tx.Exec(ctx, `UPDATE episode_comments SET reply_cnt = GREATEST(reply_cnt - 1, 0) WHERE id = $1`, c.parent); err != nil {
		return fmt.Errorf("uncount reply: %w", err)
	}
	_, err := tx.Exec(ctx, `UPDATE episode_comment_meta SET comment_cnt = GREATEST(comment_cnt - $3, 0) WHERE pid = $1 AND vol = $2`, c.pid, c.vol, n)
	return err
}

// commentDelete deletes the member's own comment.
func (s *Service) commentDelete(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	id, err := commentID(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.tx(ctx, func(tx pgx.Tx) error {
		c, err := lockComment(ctx, tx, id)
		if err != nil {
			return err
		}
		if c.uid != uid {
			return httpapi.Errorf(http.StatusForbidden, "내가 쓴 댓글이 아닙니다.")
		}
		if _, err := tx.Exec(ctx, `UPDATE episode_comments SET deleted = true WHERE id = $1`, id); err != nil {
			return err
		}
		if !c.hidden {
			if err := removeVisible(ctx, tx, c); err != nil {
				return err
			}
		}
		return touched(ctx, tx, c)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// commentLike likes (POST) or unlikes (DELETE) a comment; a member's like
// counts once however often it is sent.
func (s *Service) commentLike(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	id, err := commentID(r)
	if err != nil {
		return err
	}
	on := r.Method == http.MethodPost
	ctx := r.Context()
	var cnt int
	err = s.tx(ctx, func(tx pgx.Tx) error {
		c, err := lockComment(ctx, tx, id)
		if err != nil {
			return err
		}
		if c.gone {
			return httpapi.Errorf(http.StatusNotFound, msgCommentNotFound)
		}
		var tag pgconn.CommandTag
		delta := 1
		if on {
			tag, err = tx.Exec(ctx, `INSERT INTO episode_comment_likes (comment_id, uid) VALUES ($1, $2) ON CONFLICT DO NOTHING`, id, uid)
		} else {
			delta = -1
			tag, err = tx.Exec(ctx, `DELETE FROM episode_comment_likes WHERE comment_id = $1 AND uid = $2`, id, uid)
		}
		if err != nil {
			return err
		}
		cnt = c.likes
		if tag.RowsAffected() == 0 {
			return nil
		}
		if err := tx.QueryRow(ctx, `UPDATE episode_comments SET like_cnt = GREATEST(like_cnt + $2, 0) WHERE id = $1 RETURNING like_cnt`, id, delta).Scan(&cnt); err != nil {
			return err
		}
		return touched(ctx, tx, c)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsMyLike bool `json:"isMyLike"`
		LikeCnt  int  `json:"likeCnt"`
	}{ok(), on, cnt})
}

// commentReport reports a comment once per member for the moderators
// (commentsadmin.go); nothing readers see changes until they decide.
func (s *Service) commentReport(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	id, err := commentID(r)
	if err != nil {
		return err
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if r.ContentLength != 0 {
		if err := httpapi.DecodeJSON(r, &body); err != nil {
			return err
		}
	}
	if len([]rune(body.Reason)) > 500 {
		return httpapi.BadRequest("신고 사유는 500자까지 쓸 수 있습니다.")
	}
	ctx := r.Context()
	err = s.tx(ctx, func(tx pgx.Tx) error {
		c, err := lockComment(ctx, tx, id)
		if err != nil {
			return err
		}
		if c.uid == uid {
			return httpapi.BadRequest("내가 쓴 댓글은 신고할 수 없습니다.")
		}
		tag, err := tx.Exec(ctx, `INSERT INTO episode_comment_reports (comment_id, uid, reason, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, id, uid, body.Reason, s.now())
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE episode_comments SET report_cnt = report_cnt + 1 WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsReport bool `json:"isReport"`
	}{ok(), true})
}

// episodeHeart gives (POST) or takes back (DELETE) the member's heart of an
// episode, once per member; readers of the episode only.
func (s *Service) episodeHeart(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	pid, vol, err := episodePath(r)
	if err != nil {
		return err
	}
	on := r.Method == http.MethodPost
	if on {
		if _, err := s.mayRead(r, uid, pid, vol); err != nil {
			return err
		}
	}
	ctx := r.Context()
	var cnt int
	err = s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO episode_comment_meta (pid, vol) VALUES ($1, $2) ON CONFLICT DO NOTHING`, pid, vol); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "23503" {
				return httpapi.Errorf(http.StatusNotFound, "작품을 찾을 수 없습니다.")
			}
			return err
		}
		// Lock the episode's row: the count follows the rows exactly.
		if err := tx.QueryRow(ctx, `SELECT heart_cnt FROM episode_comment_meta WHERE pid = $1 AND vol = $2 FOR UPDATE`, pid, vol).Scan(&cnt); err != nil {
			return err
		}
		var tag pgconn.CommandTag
		delta := 1
		if on {
			tag, err = tx.Exec(ctx, `INSERT INTO episode_hearts (pid, vol, uid, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, pid, vol, uid, s.now())
		} else {
			delta = -1
			tag, err = tx.Exec(ctx, `DELETE FROM episode_hearts WHERE pid = $1 AND vol = $2 AND uid = $3`, pid, vol, uid)
		}
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		if err := tx.QueryRow(ctx, `UPDATE episode_comment_meta SET heart_cnt = GREATEST(heart_cnt + $3, 0) WHERE pid = $1 AND vol = $2 RETURNING heart_cnt`,
			pid, vol, delta).Scan(&cnt); err != nil {
			return err
		}
		return outbox.Doc(ctx, tx, contract.CommentHeadKey(pid, vol))
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsMyHeart bool `json:"isMyHeart"`
		HeartCnt  int  `json:"heartCnt"`
	}{ok(), on, cnt})
}

// commentState answers the member's own flags on an episode's comments (the
// public lists come from the edge): liked, reported and own comment ids, and
// the heart.
func (s *Service) commentState(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	pid, vol, err := episodePath(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	ids := func(sql string) ([]int64, error) {
		rows, err := s.pool.Query(ctx, sql, pid, vol, uid)
		if err != nil {
			return nil, err
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if out == nil {
			out = []int64{}
		}
		return out, err
	}
	var ans struct {
		httpapi.Header200
		Likes    []int64 `json:"myLikes"`
		Reported []int64 `json:"reported"`
		Mine     []int64 `json:"mine"`
		Heart    bool    `json:"isMyHeart"`
	}
	ans.Header200 = ok()
	if ans.Likes, err = ids(`SELECT l.comment_id FROM episode_comment_likes l JOIN episode_comments c ON c.id = l.comment_id
		WHERE c.pid = $1 AND c.vol = $2 AND l.uid = $3`); err != nil {
		return err
	}
	if ans.Reported, err = ids(`SELECT p.comment_id FROM episode_comment_reports p JOIN episode_comments c ON c.id = p.comment_id
		WHERE c.pid = $1 AND c.vol = $2 AND p.uid = $3`); err != nil {
		return err
	}
	if ans.Mine, err = ids(`SELECT id FROM episode_comments WHERE pid = $1 AND vol = $2 AND uid = $3 AND NOT deleted`); err != nil {
		return err
	}
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM episode_hearts WHERE pid = $1 AND vol = $2 AND uid = $3)`,
		pid, vol, uid).Scan(&ans.Heart); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, ans)
}

// SetCommentsPerMinute changes the bound of CommentsPerMinute.
func (s *Service) SetCommentsPerMinute(n int) {
	s.CommentsPerMinute = n
	s.commentLimit = httpapi.NewLimiter(n)
}
