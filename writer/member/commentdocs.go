package member

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/outbox"
)

// CommentBuilders are the outbox builders of comment heads and pages
// (contract/comments.go). now places the best comments' age (BestScore).
func CommentBuilders(now func() time.Time) map[string]outbox.Builder {
	if now == nil {
		now = time.Now
	}
	return map[string]outbox.Builder{
		contract.KeyCommentHead: func(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
			return buildCommentHeads(ctx, tx, keys, now())
		},
		contract.KeyCommentPage: buildCommentPages,
	}
}

// visible is the SQL condition of a comment readers see. Replies are only
// ever read under a visible parent: they go with a deleted or hidden one.
const visible = `NOT c.deleted AND NOT c.hidden`

const commentColumns = `c.id, COALESCE(c.parent_id, 0), u.login_id, c.body, c.is_spoiler, c.is_buyer, c.like_cnt, c.reply_cnt, c.created_at, c.seq`

func scanComments(rows pgx.Rows) ([]contract.Comment, error) {
	defer rows.Close()
	out := []contract.Comment{}
	for rows.Next() {
		var c contract.Comment
		var login string
		var seq int
		if err := rows.Scan(&c.ID, &c.ParentID, &login, &c.Body, &c.IsSpoiler, &c.IsBuyer, &c.LikeCnt, &c.ReplyCnt, &c.CreatedAt, &seq); err != nil {
			return nil, fmt.Errorf("scan comment: %w", err)
		}
		c.UserName = maskName(login)
		c.CreatedAt = c.CreatedAt.UTC()
		if c.ParentID == 0 {
			c.Page = (seq - 1) / contract.CommentPageSize
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// attachReplies puts under each comment of lists its visible replies, the
// newest limit of them (0: all), oldest first.
func attachReplies(ctx context.Context, tx pgx.Tx, limit int, lists ...[]contract.Comment) error {
	var ids []int64
	seen := map[int64]bool{}
	for _, l := range lists {
		for _, c := range l {
			// A comment both best and newest has its replies loaded once.
			if c.ReplyCnt > 0 && !seen[c.ID] {
				seen[c.ID] = true
				ids = append(ids, c.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	lim := "ALL"
	if limit > 0 {
		lim = fmt.Sprint(limit)
	}
	rows, err := tx.Query(ctx, `SELECT `+commentColumns+` FROM unnest($1::bigint[]) p(id)
		CROSS JOIN LATERAL (SELECT * FROM episode_comments c WHERE c.parent_id = p.id AND `+visible+` ORDER BY c.id DESC LIMIT `+lim+`) c
		JOIN users u ON u.uid = c.uid ORDER BY c.id`, ids)
	if err != nil {
		return fmt.Errorf("load replies: %w", err)
	}
	replies, err := scanComments(rows)
	if err != nil {
		return err
	}
	by := map[int64][]contract.Comment{}
	for _, r := range replies {
		by[r.ParentID] = append(by[r.ParentID], r)
	}
	for _, l := range lists {
		for i := range l {
			l[i].Replies = by[l[i].ID]
		}
	}
	return nil
}

// buildCommentHeads builds cmts.<pid>.<vol>: counts, note, pinned, best,
// newest and the page references. An episode of a deleted work has none.
func buildCommentHeads(ctx context.Context, tx pgx.Tx, keys []string, now time.Time) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, k := range keys {
		pid, vol, ok := contract.ParseCommentHeadKey(k)
		if !ok {
			continue
		}
		h := contract.CommentHead{PID: pid, Vol: vol, Best: []contract.Comment{}, Newest: []contract.Comment{}, Pages: []contract.CommentPageRef{}}
		var pinned *int64
		err := tx.QueryRow(ctx, `SELECT comment_cnt, heart_cnt, note, pinned_id FROM episode_comment_meta WHERE pid = $1 AND vol = $2`,
			pid, vol).Scan(&h.Count, &h.Hearts, &h.Note, &pinned)
		if err == pgx.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("load comment counts of %s: %w", k, err)
		}
		rows, err := tx.Query(ctx, `SELECT `+commentColumns+` FROM episode_comments c JOIN users u ON u.uid = c.uid
			WHERE c.pid = $1 AND c.vol = $2 AND c.parent_id IS NULL AND `+visible+` AND c.like_cnt >= $4
			ORDER BY c.like_cnt / power(GREATEST(EXTRACT(EPOCH FROM ($3::timestamptz - c.created_at)), 0) / 3600.0 + 2, $5) DESC, c.id DESC
			LIMIT $6`, pid, vol, now, contract.BestMinLikes, contract.BestGravity, contract.CommentBest)
		if err != nil {
			return nil, fmt.Errorf("load best comments of %s: %w", k, err)
		}
		if h.Best, err = scanComments(rows); err != nil {
			return nil, err
		}
		rows, err = tx.Query(ctx, `SELECT `+commentColumns+` FROM episode_comments c JOIN users u ON u.uid = c.uid
			WHERE c.pid = $1 AND c.vol = $2 AND c.parent_id IS NULL AND `+visible+` ORDER BY c.seq DESC LIMIT $3`, pid, vol, contract.CommentNewest)
		if err != nil {
			return nil, fmt.Errorf("load newest comments of %s: %w", k, err)
		}
		if h.Newest, err = scanComments(rows); err != nil {
			return nil, err
		}
		var pin []contract.Comment
		if pinned != nil {
			rows, err = tx.Query(ctx, `SELECT `+commentColumns+` FROM episode_comments c JOIN users u ON u.uid = c.uid
				WHERE c.id = $1 AND c.parent_id IS NULL AND `+visible, *pinned)
			if err != nil {
				return nil, fmt.Errorf("load pinned comment of %s: %w", k, err)
			}
			if pin, err = scanComments(rows); err != nil {
				return nil, err
			}
		}
		if err := attachReplies(ctx, tx, contract.CommentHeadReplies, h.Best, h.Newest, pin); err != nil {
			return nil, err
		}
		if len(pin) == 1 {
			h.Pinned = &pin[0]
		}
		rows, err = tx.Query(ctx, `SELECT (c.seq - 1) / $3, max(c.rev), count(*) FILTER (WHERE `+visible+`)
			FROM episode_comments c WHERE c.pid = $1 AND c.vol = $2 AND c.parent_id IS NULL GROUP BY 1 ORDER BY 1 DESC`,
			pid, vol, contract.CommentPageSize)
		if err != nil {
			return nil, fmt.Errorf("load comment pages of %s: %w", k, err)
		}
		for rows.Next() {
			var ref contract.CommentPageRef
			if err := rows.Scan(&ref.Index, &ref.Version, &ref.Count); err != nil {
				rows.Close()
				return nil, fmt.Errorf("scan comment page: %w", err)
			}
			h.Pages = append(h.Pages, ref)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("load comment pages of %s: %w", k, err)
		}
		if err := tx.QueryRow(ctx, `SELECT nextval('catalog_version')`).Scan(&h.Version); err != nil {
			return nil, err
		}
		b, err := json.Marshal(h)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	return out, nil
}

// buildCommentPages builds cmtpg.<pid>.<vol>.<index>: the page's visible
// comments newest first with all their replies. Its version is its comments'
// largest rev, the one the head names.
func buildCommentPages(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, k := range keys {
		pid, vol, index, ok := contract.ParseCommentPageKey(k)
		if !ok {
			continue
		}
		lo := index*contract.CommentPageSize + 1
		hi := lo + contract.CommentPageSize
		pg := contract.CommentPage{PID: pid, Vol: vol, Index: index}
		var version *int64
		if err := tx.QueryRow(ctx, `SELECT max(rev) FROM episode_comments WHERE pid = $1 AND vol = $2 AND parent_id IS NULL AND seq >= $3 AND seq < $4`,
			pid, vol, lo, hi).Scan(&version); err != nil {
			return nil, fmt.Errorf("version of %s: %w", k, err)
		}
		if version == nil {
			continue
		}
		pg.Version = *version
		rows, err := tx.Query(ctx, `SELECT `+commentColumns+` FROM episode_comments c JOIN users u ON u.uid = c.uid
			WHERE c.pid = $1 AND c.vol = $2 AND c.parent_id IS NULL AND c.seq >= $3 AND c.seq < $4 AND `+visible+` ORDER BY c.seq DESC`,
			pid, vol, lo, hi)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", k, err)
		}
		if pg.Comments, err = scanComments(rows); err != nil {
			return nil, err
		}
		if err := attachReplies(ctx, tx, 0, pg.Comments); err != nil {
			return nil, err
		}
		b, err := json.Marshal(pg)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	return out, nil
}
