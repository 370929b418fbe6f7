package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/outbox"
)

func key(prefix string, id int64) string { return prefix + strconv.FormatInt(id, 10) }

func ids(keys []string, prefix string) []int64 {
	out := make([]int64, 0, len(keys))
	for _, k := range keys {
		if n, err := strconv.ParseInt(strings.TrimPrefix(k, prefix), 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func checkWindow(start, end time.Time) error {
	if start.IsZero() || end.IsZero() || end.Before(start) {
		return invalid("startAt and endAt are required and endAt must not be before startAt")
	}
	return nil
}

func checkText(name, v string, maxLen int, required bool) error {
	if required && strings.TrimSpace(v) == "" {
		return invalid("%s is required", name)
	}
	if len([]rune(v)) > maxLen {
		return invalid("%s is longer than %d characters", name, maxLen)
	}
	return nil
}

// upsertReturning inserts a row with a generated id (id 0) or upserts it.
func upsertReturning(ctx context.Context, tx pgx.Tx, table, idCol string, id int64, cols []string, vals []any) (int64, error) {
	ph := make([]string, len(cols))
	set := make([]string, len(cols))
	for i, c := range cols {
		ph[i] = "$" + strconv.Itoa(i+1)
		set[i] = c + " = EXCLUDED." + c
	}
	var sql string
	if id == 0 {
		sql = fmt.Sprintf(`INSERT INTO %s (%s, version) VALUES (%s, nextval('catalog_version')) RETURNING %s`,
			table, strings.Join(cols, ", "), strings.Join(ph, ", "), idCol)
	} else {
		vals = append(vals, id)
		sql = fmt.Sprintf(`INSERT INTO %s (%s, %s, version) VALUES (%s, $%d, nextval('catalog_version'))
			ON CONFLICT (%s) DO UPDATE SET %s, version = EXCLUDED.version RETURNING %s`,
			table, strings.Join(cols, ", "), idCol, strings.Join(ph, ", "), len(vals), idCol, strings.Join(set, ", "), idCol)
	}
	var out int64
	if err := tx.QueryRow(ctx, sql, vals...).Scan(&out); err != nil {
		return 0, fmt.Errorf("save %s: %w", table, err)
	}
	return out, nil
}

// Delete removes one entity row and enqueues its key (the relay deletes it
// from the bucket). prefix is one of contract.KeyEvent, KeyAward, KeyFAQ,
// KeyNotice, KeyBanner, KeyKeyword.
func Delete(ctx context.Context, tx pgx.Tx, prefix string, id int64) error {
	table, idCol := "", "id"
	switch prefix {
	case contract.KeyEvent:
		table, idCol = "events", "eid"
	case contract.KeyAward:
		table, idCol = "awards", "eid"
	case contract.KeyFAQ:
		table = "faq"
	case contract.KeyNotice:
		table = "notices"
	case contract.KeyBanner:
		table = "banners"
	case contract.KeyKeyword:
		table = "keywords"
	default:
		return fmt.Errorf("delete: unknown kind %q", prefix)
	}
	tag, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE `+idCol+` = $1`, id)
	if err != nil {
		return fmt.Errorf("delete %s %d: %w", table, id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s %d: %w", table, id, ErrNotFound)
	}
	return outbox.Doc(ctx, tx, key(prefix, id))
}

// SaveEvent validates and upserts an event (EID 0 creates one) and returns its id.
func SaveEvent(ctx context.Context, tx pgx.Tx, e *contract.Event) (int64, error) {
	if err := checkText("kind", e.Kind, 32, true); err != nil {
		return 0, err
	}
	if err := checkText("title", e.Title, 200, true); err != nil {
		return 0, err
	}
	if err := checkWindow(e.StartAt, e.EndAt); err != nil {
		return 0, err
	}
	if e.EID < 0 || e.Coupons < 0 {
		return 0, invalid("eid and coupons must not be negative")
	}
	id, err := upsertReturning(ctx, tx, "events", "eid", e.EID,
		[]string{"kind", "title", "body", "banner_url", "section", "pids", "writer", "coupons", "start_at", "end_at"},
		[]any{e.Kind, e.Title, e.Body, e.BannerURL, e.Section, nonNil(e.PIDs), e.Writer, e.Coupons, e.StartAt, e.EndAt})
	if err != nil {
		return 0, err
	}
	return id, outbox.Doc(ctx, tx, key(contract.KeyEvent, id))
}

// SaveFAQ validates and upserts a FAQ entry.
func SaveFAQ(ctx context.Context, tx pgx.Tx, f *contract.FAQ) (int64, error) {
	okCID := false
	for _, c := range contract.FAQCategories {
		okCID = okCID || c == f.CID
	}
	if !okCID {
		return 0, invalid("cid must be one of 01000, 02000, 03100, 03300, etc")
	}
	if err := checkText("question", f.Question, 500, true); err != nil {
		return 0, err
	}
	if err := checkText("answer", f.Answer, 20000, true); err != nil {
		return 0, err
	}
	if f.ID < 0 {
		return 0, invalid("id must not be negative")
	}
	id, err := upsertReturning(ctx, tx, "faq", "id", f.ID,
		[]string{"cid", "question", "answer", "ord"}, []any{f.CID, f.Question, f.Answer, f.Order})
	if err != nil {
		return 0, err
	}
	return id, outbox.Doc(ctx, tx, key(contract.KeyFAQ, id))
}

// SaveNotice validates and upserts a notice.
func SaveNotice(ctx context.Context, tx pgx.Tx, n *contract.Notice, now time.Time) (int64, error) {
	if n.Kind == "" {
		n.Kind = contract.NoticeGeneral
	}
	if n.Kind != contract.NoticeGeneral && n.Kind != contract.NoticeClosingProd {
		return 0, invalid("kind must be notice or closingprod")
	}
	if err := checkText("title", n.Title, 200, true); err != nil {
		return 0, err
	}
	if err := checkText("body", n.Body, 50000, false); err != nil {
		return 0, err
	}
	if n.ID < 0 {
		return 0, invalid("id must not be negative")
	}
	if n.PostedAt.IsZero() {
		n.PostedAt = now
	}
	id, err := upsertReturning(ctx, tx, "notices", "id", n.ID,
		[]string{"kind", "title", "body", "pids", "posted_at"}, []any{n.Kind, n.Title, n.Body, nonNil(n.PIDs), n.PostedAt})
	if err != nil {
		return 0, err
	}
	return id, outbox.Doc(ctx, tx, key(contract.KeyNotice, id))
}

// SaveBanner validates and upserts a banner.
func SaveBanner(ctx context.Context, tx pgx.Tx, b *contract.Banner) (int64, error) {
	switch b.Place {
	case "home", "wt", "cm", "eb", "topapp":
	default:
		return 0, invalid("place must be home, wt, cm, eb or topapp")
	}
	if err := checkText("title", b.Title, 200, false); err != nil {
		return 0, err
	}
	if err := checkWindow(b.StartAt, b.EndAt); err != nil {
		return 0, err
	}
	if b.ID < 0 {
		return 0, invalid("id must not be negative")
	}
	id, err := upsertReturning(ctx, tx, "banners", "id", b.ID,
		[]string{"place", "title", "image_url", "link_url", "ord", "start_at", "end_at"},
		[]any{b.Place, b.Title, b.ImageURL, b.LinkURL, b.Order, b.StartAt, b.EndAt})
	if err != nil {
		return 0, err
	}
	return id, outbox.Doc(ctx, tx, key(contract.KeyBanner, id))
}

// SaveKeyword validates and upserts a keyword.
func SaveKeyword(ctx context.Context, tx pgx.Tx, k *contract.Keyword) (int64, error) {
	if err := checkText("name", k.Name, 100, true); err != nil {
		return 0, err
	}
	if k.ID < 0 {
		return 0, invalid("id must not be negative")
	}
	id, err := upsertReturning(ctx, tx, "keywords", "id", k.ID, []string{"name", "ord"}, []any{k.Name, k.Order})
	if err != nil {
		return 0, err
	}
	return id, outbox.Doc(ctx, tx, key(contract.KeyKeyword, id))
}

// SaveAward validates and upserts an award with its sections and candidates.
// Vote counts given for candidates are kept as their starting counts.
func SaveAward(ctx context.Context, tx pgx.Tx, a *contract.Award) (int64, error) {
	if err := checkText("title", a.Title, 200, true); err != nil {
		return 0, err
	}
	if err := checkWindow(a.StartAt, a.EndAt); err != nil {
		return 0, err
	}
	if a.ResultType == "" {
		a.ResultType = "VOTING"
	}
	if a.ResultType != "VOTING" && a.ResultType != "RESULT" {
		return 0, invalid("resultType must be VOTING or RESULT")
	}
	if a.EID < 0 {
		return 0, invalid("eid must not be negative")
	}
	secs := map[string]bool{}
	for _, s := range a.Sections {
		if !contract.ValidKeyID(s.Key) || secs[s.Key] {
			return 0, invalid("section keys must be unique ids")
		}
		secs[s.Key] = true
		pids := map[string]bool{}
		for _, c := range s.List {
			if !contract.ValidKeyID(c.PID) || pids[c.PID] || c.Votes < 0 {
				return 0, invalid("candidates of section %s must be unique pids with votes >= 0", s.Key)
			}
			pids[c.PID] = true
		}
	}
	id, err := upsertReturning(ctx, tx, "awards", "eid", a.EID,
		[]string{"title", "result_type", "start_at", "end_at"}, []any{a.Title, a.ResultType, a.StartAt, a.EndAt})
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM award_sections WHERE eid = $1`, id); err != nil {
		return 0, fmt.Errorf("replace award sections: %w", err)
	}
	b := &pgx.Batch{}
	for i, s := range a.Sections {
		b.Queue(`INSERT INTO award_sections (eid, key, title, ord) VALUES ($1, $2, $3, $4)`, id, s.Key, s.Title, i)
		for j, c := range s.List {
			b.Queue(`INSERT INTO award_candidates (eid, key, pid, ord, votes) VALUES ($1, $2, $3, $4, $5)`, id, s.Key, c.PID, j, c.Votes)
		}
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, fmt.Errorf("save award sections: %w", err)
	}
	return id, outbox.Doc(ctx, tx, key(contract.KeyAward, id))
}

// SaveSiteDoc stores one of the site-wide documents (contract.KeyQuickLinks,
// KeyJumpPass, KeySiteConfig) as its JSON.
func SaveSiteDoc(ctx context.Context, tx pgx.Tx, k string, doc any) error {
	switch d := doc.(type) {
	case *contract.QuickLinks:
		if k != contract.KeyQuickLinks {
			return invalid("wrong document")
		}
		for _, l := range d.Links {
			if err := checkText("title", l.Title, 100, true); err != nil {
				return err
			}
		}
		d.Links = nonNil(d.Links)
	case *contract.JumpingPass:
		if k != contract.KeyJumpPass || d.Price < 0 || d.Days < 0 {
			return invalid("price and days must not be negative")
		}
		d.Sections = nonNil(d.Sections)
	case *contract.SiteConfig:
		if k != contract.KeySiteConfig || d.WebVersionCode < 0 {
			return invalid("webVersionCode must not be negative")
		}
	default:
		return invalid("unknown site document")
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("marshal %s: %w", k, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO site_docs (key, doc) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc, version = nextval('catalog_version')`, k, b); err != nil {
		return fmt.Errorf("save %s: %w", k, err)
	}
	return outbox.Doc(ctx, tx, k)
}

// LoadSiteDoc reads a site document into doc; ErrNotFound when absent.
func LoadSiteDoc(ctx context.Context, q Querier, k string, doc any) (int64, error) {
	var b []byte
	var v int64
	err := q.QueryRow(ctx, `SELECT doc, version FROM site_docs WHERE key = $1`, k).Scan(&b, &v)
	if err == pgx.ErrNoRows {
		return 0, fmt.Errorf("%s: %w", k, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("load %s: %w", k, err)
	}
	return v, json.Unmarshal(b, doc)
}

func marshalAll[T any](out map[string][]byte, prefix string, docs map[int64]*T) error {
	for id, d := range docs {
		b, err := json.Marshal(d)
		if err != nil {
			return fmt.Errorf("marshal %s%d: %w", prefix, id, err)
		}
		out[key(prefix, id)] = b
	}
	return nil
}

// BuildEvents is the outbox builder for event.<eid> keys.
func BuildEvents(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	rows, err := tx.Query(ctx, `SELECT eid, kind, title, body, banner_url, section, pids, writer, coupons, start_at, end_at, version
		FROM events WHERE eid = ANY($1)`, ids(keys, contract.KeyEvent))
	if err != nil {
		return nil, fmt.Errorf("load events: %w", err)
	}
	docs := map[int64]*contract.Event{}
	for rows.Next() {
		e := &contract.Event{}
		if err := rows.Scan(&e.EID, &e.Kind, &e.Title, &e.Body, &e.BannerURL, &e.Section, &e.PIDs, &e.Writer, &e.Coupons, &e.StartAt, &e.EndAt, &e.Version); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan event: %w", err)
		}
		e.StartAt, e.EndAt = e.StartAt.UTC(), e.EndAt.UTC()
		docs[e.EID] = e
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load events: %w", err)
	}
	out := map[string][]byte{}
	return out, marshalAll(out, contract.KeyEvent, docs)
}

// BuildFAQ is the outbox builder for faq.<id> keys.
func BuildFAQ(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	rows, err := tx.Query(ctx, `SELECT id, cid, question, answer, ord, version FROM faq WHERE id = ANY($1)`, ids(keys, contract.KeyFAQ))
	if err != nil {
		return nil, fmt.Errorf("load faq: %w", err)
	}
	docs := map[int64]*contract.FAQ{}
	for rows.Next() {
		f := &contract.FAQ{}
		if err := rows.Scan(&f.ID, &f.CID, &f.Question, &f.Answer, &f.Order, &f.Version); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan faq: %w", err)
		}
		docs[f.ID] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load faq: %w", err)
	}
	out := map[string][]byte{}
	return out, marshalAll(out, contract.KeyFAQ, docs)
}

// BuildNotices is the outbox builder for notice.<id> keys.
func BuildNotices(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	rows, err := tx.Query(ctx, `SELECT id, kind, title, body, pids, posted_at, version FROM notices WHERE id = ANY($1)`, ids(keys, contract.KeyNotice))
	if err != nil {
		return nil, fmt.Errorf("load notices: %w", err)
	}
	docs := map[int64]*contract.Notice{}
	for rows.Next() {
		n := &contract.Notice{}
		if err := rows.Scan(&n.ID, &n.Kind, &n.Title, &n.Body, &n.PIDs, &n.PostedAt, &n.Version); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan notice: %w", err)
		}
		n.PostedAt = n.PostedAt.UTC()
		if len(n.PIDs) == 0 {
			n.PIDs = nil
		}
		docs[n.ID] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load notices: %w", err)
	}
	out := map[string][]byte{}
	return out, marshalAll(out, contract.KeyNotice, docs)
}

// BuildBanners is the outbox builder for banner.<id> keys.
func BuildBanners(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	rows, err := tx.Query(ctx, `SELECT id, place, title, image_url, link_url, ord, start_at, end_at, version FROM banners WHERE id = ANY($1)`, ids(keys, contract.KeyBanner))
	if err != nil {
		return nil, fmt.Errorf("load banners: %w", err)
	}
	docs := map[int64]*contract.Banner{}
	for rows.Next() {
		b := &contract.Banner{}
		if err := rows.Scan(&b.ID, &b.Place, &b.Title, &b.ImageURL, &b.LinkURL, &b.Order, &b.StartAt, &b.EndAt, &b.Version); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan banner: %w", err)
		}
		b.StartAt, b.EndAt = b.StartAt.UTC(), b.EndAt.UTC()
		docs[b.ID] = b
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load banners: %w", err)
	}
	out := map[string][]byte{}
	return out, marshalAll(out, contract.KeyBanner, docs)
}

// BuildKeywords is the outbox builder for keyword.<id> keys.
func BuildKeywords(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	rows, err := tx.Query(ctx, `SELECT id, name, ord, version FROM keywords WHERE id = ANY($1)`, ids(keys, contract.KeyKeyword))
	if err != nil {
		return nil, fmt.Errorf("load keywords: %w", err)
	}
	docs := map[int64]*contract.Keyword{}
	for rows.Next() {
		k := &contract.Keyword{}
		if err := rows.Scan(&k.ID, &k.Name, &k.Order, &k.Version); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan keyword: %w", err)
		}
		docs[k.ID] = k
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load keywords: %w", err)
	}
	out := map[string][]byte{}
	return out, marshalAll(out, contract.KeyKeyword, docs)
}

// BuildAwards is the outbox builder for award.<eid> keys.
func BuildAwards(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	eids := ids(keys, contract.KeyAward)
	rows, err := tx.Query(ctx, `SELECT eid, title, result_type, start_at, end_at, version FROM awards WHERE eid = ANY($1)`, eids)
	if err != nil {
		return nil, fmt.Errorf("load awards: %w", err)
	}
	docs := map[int64]*contract.Award{}
	for rows.Next() {
		a := &contract.Award{Sections: []contract.AwardSection{}}
		if err := rows.Scan(&a.EID, &a.Title, &a.ResultType, &a.StartAt, &a.EndAt, &a.Version); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan award: %w", err)
		}
		a.StartAt, a.EndAt = a.StartAt.UTC(), a.EndAt.UTC()
		docs[a.EID] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load awards: %w", err)
	}
	rows, err = tx.Query(ctx, `SELECT s.eid, s.key, s.title, c.pid, c.votes FROM award_sections s
		LEFT JOIN award_candidates c ON c.eid = s.eid AND c.key = s.key
		WHERE s.eid = ANY($1) ORDER BY s.eid, s.ord, c.ord`, eids)
	if err != nil {
		return nil, fmt.Errorf("load award sections: %w", err)
	}
	for rows.Next() {
		var eid int64
		var k, title string
		var pid *string
		var votes *int64
		if err := rows.Scan(&eid, &k, &title, &pid, &votes); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan award section: %w", err)
		}
		a := docs[eid]
		if a == nil {
			continue
		}
		if n := len(a.Sections); n == 0 || a.Sections[n-1].Key != k {
			a.Sections = append(a.Sections, contract.AwardSection{Key: k, Title: title, List: []contract.AwardCandidate{}})
		}
		if pid != nil {
			s := &a.Sections[len(a.Sections)-1]
			s.List = append(s.List, contract.AwardCandidate{PID: *pid, Votes: *votes})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load award sections: %w", err)
	}
	out := map[string][]byte{}
	return out, marshalAll(out, contract.KeyAward, docs)
}

// BuildSiteDocs is the outbox builder for the site documents.
func BuildSiteDocs(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	rows, err := tx.Query(ctx, `SELECT key, doc, version FROM site_docs WHERE key = ANY($1)`, keys)
	if err != nil {
		return nil, fmt.Errorf("load site docs: %w", err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var k string
		var doc map[string]any
		var v int64
		if err := rows.Scan(&k, &doc, &v); err != nil {
			return nil, fmt.Errorf("scan site doc: %w", err)
		}
		doc["version"] = v
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("marshal %s: %w", k, err)
		}
		out[k] = b
	}
	return out, rows.Err()
}

// Builders returns the outbox builders of every catalog key kind.
func Builders() map[string]outbox.Builder {
	return map[string]outbox.Builder{
		contract.KeyProduct:    BuildProducts,
		contract.KeyStat:       BuildStats,
		contract.KeyEvent:      BuildEvents,
		contract.KeyAward:      BuildAwards,
		contract.KeyFAQ:        BuildFAQ,
		contract.KeyNotice:     BuildNotices,
		contract.KeyBanner:     BuildBanners,
		contract.KeyKeyword:    BuildKeywords,
		contract.KeyQuickLinks: BuildSiteDocs,
		contract.KeyJumpPass:   BuildSiteDocs,
		contract.KeySiteConfig: BuildSiteDocs,
	}
}
