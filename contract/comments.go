package contract

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Episode comments (issue 36) follow the volume pages' shape (volumes.go):
// nothing of them is in the catalog bucket every edge watches. Per episode
// the writer publishes a head (best, the first page of newest, counts, the
// creator's note and the pinned comment) and pages of older comments, all in
// CommentsBucket. An edge holds the heads of the episodes it was asked for
// and of the release minute in a bounded cache, keeps them current from one
// filtered watch of the heads (updates only, no start-up replay), and gets
// pages by key on demand, cached under their version.

// CommentsBucket is the KV bucket of comment heads and pages.
const CommentsBucket = "catalog-cmts"

// Key prefixes: cmts.<pid>.<vol> is a head, cmtpg.<pid>.<vol>.<index> a page.
// Neither is a prefix of the other (the relay routes builders by prefix).
const (
	KeyCommentHead = "cmts."
	KeyCommentPage = "cmtpg."
)

// Comment sizes.
const (
	// CommentPageSize: a page holds the top-level comments whose sequence
	// number in the episode (1, 2, ...) falls in one run of this many, so a
	// comment stays on its page for good and a change rebuilds one page.
	CommentPageSize = 50
	// CommentNewest is how many of the newest comments a head carries.
	CommentNewest = 20
	// CommentBest is how many best comments a head carries.
	CommentBest = 10
	// CommentHeadReplies is how many replies a head shows under each comment
	// (the newest); the comment's page has all of them.
	CommentHeadReplies = 3
	// CommentMaxReplies bounds the replies of one comment, so a page is
	// bounded too: 50 comments of 50 replies of at most CommentMaxRunes.
	CommentMaxReplies = 50
	// CommentMaxRunes is the longest comment.
	CommentMaxRunes = 500
)

// CommentHeadKey is the head of episode vol of pid.
func CommentHeadKey(pid string, vol int) string {
	return KeyCommentHead + pid + "." + strconv.Itoa(vol)
}

// CommentPageKey is page index of episode vol of pid.
func CommentPageKey(pid string, vol, index int) string {
	return KeyCommentPage + pid + "." + strconv.Itoa(vol) + "." + strconv.Itoa(index)
}

// ParseCommentHeadKey splits a head key into its work and episode.
func ParseCommentHeadKey(key string) (pid string, vol int, ok bool) {
	rest, ok := strings.CutPrefix(key, KeyCommentHead)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return "", 0, false
	}
	vol, err := strconv.Atoi(rest[i+1:])
	if err != nil || vol < 1 {
		return "", 0, false
	}
	return rest[:i], vol, true
}

// ParseCommentPageKey splits a page key.
func ParseCommentPageKey(key string) (pid string, vol, index int, ok bool) {
	rest, ok := strings.CutPrefix(key, KeyCommentPage)
	if !ok {
		return "", 0, 0, false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return "", 0, 0, false
	}
	index, err := strconv.Atoi(rest[i+1:])
	if err != nil || index < 0 {
		return "", 0, 0, false
	}
	pid, vol, ok = ParseCommentHeadKey(KeyCommentHead + rest[:i])
	return pid, vol, index, ok
}

// Comment is one comment or reply as readers see it. Body is the text as
// written: the screens escape it.
type Comment struct {
	ID        int64     `json:"id"`
	ParentID  int64     `json:"parentId,omitempty"`
	UserName  string    `json:"userName"`
	Body      string    `json:"body"`
	IsSpoiler bool      `json:"isSpoiler"`
	IsBuyer   bool      `json:"isBuyer"`
	LikeCnt   int       `json:"likeCnt"`
	ReplyCnt  int       `json:"replyCnt"`
	CreatedAt time.Time `json:"createdAt"`
	// Page is the index of the page holding the comment with all its
	// replies (top-level comments only).
	Page    int       `json:"page"`
	Replies []Comment `json:"replies,omitempty"`
}

// CommentPageRef names one page of an episode's comments.
type CommentPageRef struct {
	Index int `json:"index"`
	// Version changes whenever a comment of the page (or a reply of one)
	// changes: an edge caches the page under it, so nothing is purged.
	Version int64 `json:"version"`
	// Count of visible top-level comments on the page.
	Count int `json:"count"`
}

// CommentHead is the document under CommentHeadKey.
type CommentHead struct {
	PID string `json:"pid"`
	Vol int    `json:"vol"`
	// Version grows with every publish (the writer's catalog_version).
	Version int64 `json:"version"`
	// Count of visible comments, replies included; Hearts of the episode.
	Count  int `json:"count"`
	Hearts int `json:"hearts"`
	// Note is the creator's note for the episode ("" for none).
	Note   string   `json:"note"`
	Pinned *Comment `json:"pinned,omitempty"`
	// Best by BestScore, Newest the CommentNewest newest top-level comments.
	Best   []Comment `json:"best"`
	Newest []Comment `json:"newest"`
	// Pages newest first: the reader's "more" walks them in order.
	Pages []CommentPageRef `json:"pages"`
}

// CommentPage is the document under CommentPageKey: its visible top-level
// comments newest first, each with all its replies (oldest first).
type CommentPage struct {
	PID      string    `json:"pid"`
	Vol      int       `json:"vol"`
	Index    int       `json:"index"`
	Version  int64     `json:"version"`
	Comments []Comment `json:"comments"`
}

// Best comments: a comment's score is its likes damped by age,
//
//	score = likes / (ageHours + 2)^1.5
//
// (the rule of Hacker News' front page). A comment of 10 likes made an hour
// ago (score 1.92) ranks above one of 50 likes made a day ago (0.37), so the
// comments of a release's first minutes do not hold the list for good, and a
// new comment rises as soon as readers like it. A comment needs BestMinLikes
// to be listed at all; ties go to the newer.
const BestMinLikes = 1

// BestGravity is the exponent of the age in BestScore.
const BestGravity = 1.5

// BestScore is a comment's score at age (see BestMinLikes).
func BestScore(likes int, age time.Duration) float64 {
	return float64(likes) / math.Pow(max(age.Hours(), 0)+2, BestGravity)
}
