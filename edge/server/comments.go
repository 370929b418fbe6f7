package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/catalog"
)

// Episode comments are read here, from catalog.Comments (never under the
// catalog's lock, never from PostgreSQL):
//
//	GET /home/api/v1/products/{pid}/episodes/{vol}/comments          the head: counts, note, pinned, best, newest, page list
//	GET /home/api/v1/products/{pid}/episodes/{vol}/comments?page=N   page N of the head's list (older comments with all replies)
//
// An adult work's comments are refused to teens and visitors like its
// reviews (403); writes and the member's own state go to a writer.

var (
	productsPrefix  = []byte(APIPrefix + "products/")
	commentsSuffix  = []byte("/comments")
	episodesSegment = []byte("/episodes/")
)

// Messages of comment reads.
const (
	msgCommentsAdult   = "성인 인증이 필요합니다."
	msgCommentsNoWork  = "작품을 찾을 수 없습니다."
	msgCommentsBadVol  = "회차 번호는 양의 정수여야 합니다."
	msgCommentsBadPage = "댓글 페이지(page)가 올바르지 않습니다."
	msgCommentsNoPage  = "댓글 페이지를 찾을 수 없습니다."
)

// commentsPath splits a comments read's path, or ok false when it is not one.
func commentsPath(path []byte) (pid []byte, vol int, ok bool) {
	if !bytes.HasPrefix(path, productsPrefix) || !bytes.HasSuffix(path, commentsSuffix) {
		return nil, 0, false
	}
	rest := path[len(productsPrefix) : len(path)-len(commentsSuffix)]
	i := bytes.Index(rest, episodesSegment)
	if i <= 0 {
		return nil, 0, false
	}
	n := rest[i+len(episodesSegment):]
	if len(n) == 0 || len(n) > 6 {
		return rest[:i], 0, true
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return rest[:i], 0, true
		}
		vol = vol*10 + int(c-'0')
	}
	return rest[:i], vol, true
}

// serveComments answers a comments read; false when the path is not one.
func (s *Server) serveComments(ctx *fasthttp.RequestCtx, teen bool) bool {
	pidb, vol, ok := commentsPath(ctx.Path())
	if !ok {
		return false
	}
	pid := string(pidb)
	if !contract.ValidKeyID(pid) {
		s.writeError(ctx, fasthttp.StatusNotFound, msgCommentsNoWork)
		return true
	}
	if vol < 1 {
		s.writeError(ctx, fasthttp.StatusBadRequest, msgCommentsBadVol)
		return true
	}
	found, allowed := s.store.EpisodeAudience(pid, teen)
	switch {
	case !found:
		s.writeError(ctx, fasthttp.StatusNotFound, msgCommentsNoWork)
		return true
	case !allowed:
		s.writeError(ctx, fasthttp.StatusForbidden, msgCommentsAdult)
		return true
	}
	rctx, cancel := context.WithTimeout(context.Background(), commentWait)
	defer cancel()
	head, err := s.comments.Head(rctx, pid, vol)
	if err != nil {
		s.log.Warn("comment head", "pid", pid, "vol", vol, "err", err)
		s.writeError(ctx, fasthttp.StatusServiceUnavailable, msgPagesUnavailable)
		return true
	}
	pageArg := ctx.QueryArgs().Peek("page")
	if pageArg == nil {
		s.writeEntry(ctx, head.Entry)
		return true
	}
	index, err := strconv.Atoi(string(pageArg))
	if err != nil || index < 0 {
		s.writeError(ctx, fasthttp.StatusBadRequest, msgCommentsBadPage)
		return true
	}
	var version int64
	for _, ref := range head.Head.Pages {
		if ref.Index == index {
			version = ref.Version
		}
	}
	if version == 0 {
		s.writeError(ctx, fasthttp.StatusNotFound, msgCommentsNoPage)
		return true
	}
	pg, err := s.comments.Page(rctx, pid, vol, index, version)
	if err != nil {
		s.log.Warn("comment page", "pid", pid, "vol", vol, "page", index, "err", err)
		s.writeError(ctx, fasthttp.StatusServiceUnavailable, msgPagesUnavailable)
		return true
	}
	s.writeEntry(ctx, pg.Entry)
	return true
}

// commentWait bounds how long a reader waits for a comment document.
const commentWait = 3 * time.Second

// fetchComments is the comment cache's origin: one KV get.
func (s *Server) fetchComments(ctx context.Context, key string) ([]byte, error) {
	if !s.nc.IsConnected() {
		return nil, errNATSDown
	}
	e, err := s.cmtKV.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, catalog.ErrCommentsMissing
	}
	if err != nil {
		return nil, fmt.Errorf("kv get: %w", err)
	}
	return e.Value(), nil
}

// watchComments keeps the cached heads current: one watch of every head
// key, new changes only (no replay of the bucket at start), each applied
// to the cache only when this edge holds that head.
func (s *Server) watchComments(ctx context.Context) {
	for ctx.Err() == nil {
		if err := s.watchCommentsOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("watch comment heads", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

func (s *Server) watchCommentsOnce(ctx context.Context) error {
	w, err := s.cmtKV.Watch(ctx, contract.KeyCommentHead+">", jetstream.UpdatesOnly())
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("watch closed")
			}
			if e == nil {
				continue
			}
			var raw []byte
			if e.Operation() == jetstream.KeyValuePut {
				raw = e.Value()
			}
			if err := s.comments.Update(e.Key(), raw); err != nil {
				s.log.Warn("comment head update", "key", e.Key(), "err", err)
			}
		}
	}
}

// pinComments keeps the heads of the release minute's episodes in memory
// (the window of the volume pages' pins), re-evaluated every minute: the
// volume pins take the store's change signal, and a release is known hours ahead.
func (s *Server) pinComments(ctx context.Context) {
	t := time.NewTicker(pinEvery)
	defer t.Stop()
	for {
		missing := s.comments.SetPins(s.store.ReleasingEpisodes(s.cfg.Now(), s.cfg.VolumePinAhead))
		var wg sync.WaitGroup
		next := make(chan catalog.Episode)
		for range min(pinFetches, len(missing)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ep := range next {
					if _, err := s.comments.Head(ctx, ep.PID, ep.Vol); err != nil && ctx.Err() == nil {
						s.log.Warn("pin comment head", "pid", ep.PID, "vol", ep.Vol, "err", err)
					}
				}
			}()
		}
	feed:
		for _, ep := range missing {
			select {
			case <-ctx.Done():
				break feed
			case next <- ep:
			}
		}
		close(next)
		wg.Wait()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
