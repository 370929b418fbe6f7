// Package catalog is the writer's catalog store: works, authors, volumes,
// events, awards, FAQ, notices, banners, keywords and the site documents in
// PostgreSQL, and the builders that turn those rows back into the contract
// documents the relay publishes to the catalog KV bucket.
//
// Every Save and Delete takes the caller's transaction and enqueues the changed
// keys in the outbox in that same transaction; the caller commits.
package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"storefront/contract"
	"storefront/writer/outbox"
)

// Querier runs queries: a pgx.Tx, a pool or a connection.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// ErrNotFound is returned when a document does not exist.
var ErrNotFound = errors.New("not found")

// ValidationError is bad input; its message is safe to show to the caller.
type ValidationError struct{ Msg string }

func (e *ValidationError) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &ValidationError{Msg: fmt.Sprintf(format, args...)}
}

const workCols = `pid, section, title, sub_title, summary, provider, thumb_url, thumb_wide_url,
	genre_id, sub_genre, category1, category2, age, flag_end, weekdays, update_cycle,
	is_original, is_monopoly, is_short_story, right_to_left, original_label, unit, keywords, alt_titles,
	wait_for_free, gift, jumping_pass, wait_recycle, wait_exclude_newest,
	is_special_price_set, is_package, special_price_set_main_subdir, special_price_set_prod_cnt,
	cashback_rate, discount_rate, event_deadline, rent_days, service_code, early_count, early_price,
	view_cnt, review_count, point_sum, zzim_count, related, notices, event_ids, trailers,
	hidden, registered_at, updated_at`

var workColList = splitCols(workCols)

const volumeCols = `pid, no, title, release_at, is_free, buy_price, buy_price_org, rent_price,
	rent_price_org, pages, content_base, preview_pages`

var volumeColList = splitCols(volumeCols)

func splitCols(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

func jsonOr(v any, empty string) []byte {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return []byte(empty)
	}
	return b
}

// workRow returns the values of workCols for p.
func workRow(p *contract.Product) []any {
	var deadline *time.Time
	if !p.EventDeadline.IsZero() {
		d := p.EventDeadline
		deadline = &d
	}
	weekdays := p.Weekdays
	if weekdays == nil {
		weekdays = []int{}
	}
	keywords := p.Keywords
	if keywords == nil {
		keywords = []string{}
	}
	altTitles := p.AltTitles
	if altTitles == nil {
		altTitles = []string{}
	}
	eventIDs := p.EventIDs
	if eventIDs == nil {
		eventIDs = []int64{}
	}
	return []any{p.PID, p.Section, p.Title, p.SubTitle, p.Summary, p.Provider, p.ThumbURL, p.ThumbWideURL,
		p.GenreID, p.SubGenre, p.Category1, p.Category2, p.Age, p.FlagEnd, weekdays, p.UpdateCycle,
		p.IsOriginal, p.IsMonopoly, p.IsShortStory, p.RightToLeft, p.OriginalLabel, p.Unit, keywords, altTitles,
		p.WaitForFree, p.Gift, p.JumpingPass, p.WaitRecycle, p.WaitExcludeNewest,
		p.IsSpecialPriceSet, p.IsPackage, p.SpecialPriceSetMainSubdir, p.SpecialPriceSetProdCnt,
		p.CashbackRate, p.DiscountRate, deadline, p.RentDays, p.ServiceCode, p.EarlyCount, p.EarlyPrice,
		p.ViewCnt, p.ReviewCount, p.PointSum, p.ZzimCount,
		jsonOr(p.Related, "{}"), jsonOr(p.Notices, "[]"), eventIDs, jsonOr(p.Trailers, "[]"),
		p.Hidden, p.RegisteredAt, p.UpdatedAt}
}

func volumeRow(pid string, v *contract.Volume) []any {
	return []any{pid, v.No, v.Title, v.ReleaseAt, v.IsFree, v.BuyPrice, v.BuyPriceOrg, v.RentPrice,
		v.RentPriceOrg, v.Pages, v.ContentBase, v.PreviewPages}
}

// Placeholders of a work without an uploaded cover or wide cover: files of
// the built SPA (frontend/public/covers).
const (
	NoCover     = "/covers/none.svg"
	NoWideCover = "/covers/none-wide.svg"
)

// Early access bounds (migration 0160 keeps the same in the table).
const (
	MaxEarlyCount = 50
	MinEarlyPrice = 100
	MaxEarlyPrice = 1_000_000
)

// Normalize fills defaults and validates a product document.
func Normalize(p *contract.Product, now time.Time) error {
	p.Title = strings.TrimSpace(p.Title)
	switch {
	case !contract.ValidKeyID(p.PID):
		return invalid("pid must be 1-128 characters of A-Z a-z 0-9 _ -")
	case p.Section != contract.SectionWebtoon && p.Section != contract.SectionComic && p.Section != contract.SectionNovel:
		return invalid("section must be WT, CM or EB")
	case p.Title == "" || len([]rune(p.Title)) > 200:
		return invalid("title must be 1-200 characters")
	case len(p.Summary) > 20000:
		return invalid("summary too long")
	case p.Age != 0 && p.Age != 12 && p.Age != 15 && p.Age != 19:
		return invalid("age must be 0, 12, 15 or 19")
	case p.CashbackRate < 0 || p.CashbackRate > 100 || p.DiscountRate < 0 || p.DiscountRate > 100:
		return invalid("rates must be 0-100")
	case p.WaitRecycle < 0 || p.WaitExcludeNewest < 0 || p.RentDays < 0 || p.SpecialPriceSetProdCnt < 0:
		return invalid("counts must not be negative")
	case p.ViewCnt < 0 || p.ReviewCount < 0 || p.ZzimCount < 0:
		return invalid("metrics must not be negative")
	case p.EarlyCount < 0 || p.EarlyCount > MaxEarlyCount:
		return invalid("미리보기 회차 수(earlyCount)는 0부터 %d까지입니다.", MaxEarlyCount)
	case p.EarlyCount > 0 && (p.EarlyPrice < MinEarlyPrice || p.EarlyPrice > MaxEarlyPrice):
		return invalid("미리보기 가격(earlyPrice)은 %d원부터 %d원까지, 100원 단위로 정해 주세요.", MinEarlyPrice, MaxEarlyPrice)
	case p.EarlyCount > 0 && p.EarlyPrice%100 != 0:
		return invalid("미리보기 가격(earlyPrice)은 %d원부터 %d원까지, 100원 단위로 정해 주세요.", MinEarlyPrice, MaxEarlyPrice)
	case p.EarlyCount == 0 && p.EarlyPrice != 0:
		return invalid("미리보기 가격(earlyPrice)은 미리보기 회차 수(earlyCount)와 함께 정해 주세요.")
	case p.RightToLeft && p.Section != contract.SectionComic:
		// A strip or a text has no page order to turn: the flag would
		// only mislead the next reader of the document.
		return invalid("오른쪽에서 왼쪽으로 넘기기(rightToLeft)는 만화(CM)에만 정할 수 있습니다.")
	}
	if p.GenreID != "" && !knownGenre(p.GenreID) {
		return invalid("unknown genreId %q", p.GenreID)
	}
	for _, d := range p.Weekdays {
		if d < 0 || d > 6 {
			return invalid("weekdays must be 0-6")
		}
	}
	if err := normalizeAltTitles(p); err != nil {
		return err
	}
	switch p.ServiceCode {
	case 0:
		p.ServiceCode = 200
	case 200, 201, 202, 203:
	default:
		return invalid("serviceCode must be 200-203")
	}
	if p.Unit == "" {
		p.Unit = "화"
		if p.Section != contract.SectionWebtoon {
			p.Unit = "권"
		}
	}
	// Until a cover is uploaded (a media job points the work at it), the
	// SPA's placeholder.
	if p.ThumbURL == "" {
		p.ThumbURL = NoCover
	}
	if p.ThumbWideURL == "" {
		p.ThumbWideURL = NoWideCover
	}
	if p.RegisteredAt.IsZero() {
		p.RegisteredAt = now
	}
	p.UpdatedAt = now
	seen := map[int64]bool{}
	for i := range p.Authors {
		a := &p.Authors[i]
		a.AuthorName = strings.TrimSpace(a.AuthorName)
		if a.AuthorID < 0 || (a.AuthorID == 0 && a.AuthorName == "") {
			return invalid("author needs authorId or authorName")
		}
		if a.AuthorID != 0 && seen[a.AuthorID] {
			return invalid("author %d listed twice", a.AuthorID)
		}
		seen[a.AuthorID] = true
	}
	nos := map[int]bool{}
	for i := range p.Volumes {
		if err := NormalizeVolume(p.PID, &p.Volumes[i], now); err != nil {
			return err
		}
		if nos[p.Volumes[i].No] {
			return invalid("volume %d listed twice", p.Volumes[i].No)
		}
		nos[p.Volumes[i].No] = true
	}
	return nil
}

// NormalizeVolume fills defaults and validates one volume of pid.
func NormalizeVolume(pid string, v *contract.Volume, now time.Time) error {
	const maxPrice = 1_000_000
	switch {
	case v.No <= 0 || v.No > 100000:
		return invalid("volume no must be 1-100000")
	case len([]rune(v.Title)) > 200:
		return invalid("volume title too long")
	case v.BuyPrice < 0 || v.BuyPriceOrg < 0 || v.RentPrice < 0 || v.RentPriceOrg < 0:
		return invalid("prices must not be negative")
	case v.BuyPrice > maxPrice || v.BuyPriceOrg > maxPrice || v.RentPrice > maxPrice || v.RentPriceOrg > maxPrice:
		return invalid("price too large")
	case v.Pages < 0 || v.Pages > 10000 || v.PreviewPages < 0 || v.PreviewPages > v.Pages:
		return invalid("pages must be 0-10000 and previewPages at most pages")
	}
	if v.BuyPriceOrg < v.BuyPrice {
		v.BuyPriceOrg = v.BuyPrice
	}
	if v.RentPriceOrg < v.RentPrice {
		v.RentPriceOrg = v.RentPrice
	}
	if v.ContentBase == "" {
		v.ContentBase = contract.ContentBase(pid, v.No)
	}
	if v.ReleaseAt.IsZero() {
		v.ReleaseAt = now
	}
	return nil
}

func knownGenre(id string) bool {
	for _, g := range contract.Genres {
		if g.ID == id {
			return true
		}
	}
	return false
}

// NewPID allocates a pid for a work created without one.
func NewPID(ctx context.Context, q Querier) (string, error) {
	var n int64
	if err := q.QueryRow(ctx, `SELECT nextval('work_pid_seq')`).Scan(&n); err != nil {
		return "", fmt.Errorf("allocate pid: %w", err)
	}
	return fmt.Sprintf("%d", n), nil
}

// SaveProducts upserts whole product documents (work row, authors and, when
// withVolumes, the exact volume list) and enqueues their keys. It uses COPY
// into temporary tables, so it serves one admin edit and a 100,000-work import
// alike. Documents must be normalized.
func SaveProducts(ctx context.Context, tx pgx.Tx, ps []contract.Product, withVolumes bool) error {
	if len(ps) == 0 {
		return nil
	}
	// Authors given by name only are created first.
	for i := range ps {
		for j := range ps[i].Authors {
			a := &ps[i].Authors[j]
			if a.AuthorID == 0 {
				if err := tx.QueryRow(ctx, `INSERT INTO authors (name) VALUES ($1) RETURNING id`, a.AuthorName).Scan(&a.AuthorID); err != nil {
					return fmt.Errorf("create author %q: %w", a.AuthorName, err)
				}
			}
		}
	}
	if _, err := tx.Exec(ctx, `
		DROP TABLE IF EXISTS pg_temp.tmp_works, pg_temp.tmp_volumes, pg_temp.tmp_work_authors, pg_temp.tmp_authors;
		CREATE TEMP TABLE tmp_works (LIKE works INCLUDING DEFAULTS) ON COMMIT DROP;
		CREATE TEMP TABLE tmp_volumes (LIKE volumes INCLUDING DEFAULTS) ON COMMIT DROP;
		CREATE TEMP TABLE tmp_work_authors (LIKE work_authors) ON COMMIT DROP;
		CREATE TEMP TABLE tmp_authors (id bigint, name text) ON COMMIT DROP;`); err != nil {
		return fmt.Errorf("create staging tables: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tmp_works"}, workColList,
		pgx.CopyFromSlice(len(ps), func(i int) ([]any, error) { return workRow(&ps[i]), nil })); err != nil {
		return fmt.Errorf("copy works: %w", err)
	}
	var authorRows, linkRows, volRows [][]any
	names := map[int64]string{}
	for i := range ps {
		p := &ps[i]
		for j, a := range p.Authors {
			if a.AuthorName != "" {
				names[a.AuthorID] = a.AuthorName
			}
			linkRows = append(linkRows, []any{p.PID, a.AuthorID, j, a.IsWriter, a.IsPainter, a.IsOriginalWriter})
		}
		if withVolumes {
			for j := range p.Volumes {
				volRows = append(volRows, volumeRow(p.PID, &p.Volumes[j]))
			}
		}
	}
	for id, n := range names {
		authorRows = append(authorRows, []any{id, n})
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tmp_authors"}, []string{"id", "name"}, pgx.CopyFromRows(authorRows)); err != nil {
		return fmt.Errorf("copy authors: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tmp_work_authors"},
		[]string{"pid", "author_id", "ord", "is_writer", "is_painter", "is_original_writer"}, pgx.CopyFromRows(linkRows)); err != nil {
		return fmt.Errorf("copy work authors: %w", err)
	}
	if withVolumes {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tmp_volumes"}, volumeColList, pgx.CopyFromRows(volRows)); err != nil {
			return fmt.Errorf("copy volumes: %w", err)
		}
	}
	if len(ps) > 100 {
		// Fresh temp tables have no statistics; the merge joins need them.
		if _, err := tx.Exec(ctx, `ANALYZE tmp_works, tmp_volumes, tmp_work_authors`); err != nil {
			return fmt.Errorf("analyze staging tables: %w", err)
		}
	}
	var set []string
	for _, c := range workColList[1:] {
		set = append(set, c+" = EXCLUDED."+c)
	}
	merge := `
		INSERT INTO authors (id, name) SELECT id, name FROM tmp_authors
			ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name;
		INSERT INTO works (` + workCols + `, version) SELECT ` + workCols + `, nextval('catalog_version') FROM tmp_works
			ON CONFLICT (pid) DO UPDATE SET ` + strings.Join(set, ", ") + `, version = EXCLUDED.version;
		DELETE FROM work_authors WHERE pid IN (SELECT pid FROM tmp_works);
		INSERT INTO work_authors SELECT * FROM tmp_work_authors;`
	if withVolumes {
		var vset []string
		for _, c := range volumeColList[2:] {
			vset = append(vset, c+" = EXCLUDED."+c)
		}
		merge += `
		DELETE FROM volumes v WHERE v.pid IN (SELECT pid FROM tmp_works)
			AND NOT EXISTS (SELECT 1 FROM tmp_volumes t WHERE t.pid = v.pid AND t.no = v.no);
		INSERT INTO volumes (` + volumeCols + `) SELECT ` + volumeCols + ` FROM tmp_volumes
			ON CONFLICT (pid, no) DO UPDATE SET ` + strings.Join(vset, ", ") + `;`
	}
	if _, err := tx.Exec(ctx, merge); err != nil {
		return fmt.Errorf("merge products: %w", err)
	}
	if err := scheduleReleases(ctx, tx, withVolumes); err != nil {
		return err
	}
	keys := make([]string, len(ps))
	for i := range ps {
		keys[i] = contract.ProductKey(ps[i].PID)
	}
	return outbox.Doc(ctx, tx, keys...)
}

// LoadProducts reads whole product documents. Missing pids are absent from
// the answer. With forUpdate the work rows stay locked until the caller's
// transaction ends.
func LoadProducts(ctx context.Context, q Querier, pids []string, forUpdate bool) (map[string]*contract.Product, error) {
	sql := `SELECT ` + workCols + `, version FROM works WHERE pid = ANY($1)`
	if forUpdate {
		sql += ` FOR UPDATE`
	}
	rows, err := q.Query(ctx, sql, pids)
	if err != nil {
		return nil, fmt.Errorf("load works: %w", err)
	}
	out := make(map[string]*contract.Product, len(pids))
	for rows.Next() {
		p := &contract.Product{Authors: []contract.Author{}, Volumes: []contract.Volume{}}
		var deadline *time.Time
		var related, notices, trailers []byte
		if err := rows.Scan(&p.PID, &p.Section, &p.Title, &p.SubTitle, &p.Summary, &p.Provider, &p.ThumbURL, &p.ThumbWideURL,
			&p.GenreID, &p.SubGenre, &p.Category1, &p.Category2, &p.Age, &p.FlagEnd, &p.Weekdays, &p.UpdateCycle,
			&p.IsOriginal, &p.IsMonopoly, &p.IsShortStory, &p.RightToLeft, &p.OriginalLabel, &p.Unit, &p.Keywords, &p.AltTitles,
			&p.WaitForFree, &p.Gift, &p.JumpingPass, &p.WaitRecycle, &p.WaitExcludeNewest,
			&p.IsSpecialPriceSet, &p.IsPackage, &p.SpecialPriceSetMainSubdir, &p.SpecialPriceSetProdCnt,
			&p.CashbackRate, &p.DiscountRate, &deadline, &p.RentDays, &p.ServiceCode, &p.EarlyCount, &p.EarlyPrice,
			&p.ViewCnt, &p.ReviewCount, &p.PointSum, &p.ZzimCount, &related, &notices, &p.EventIDs, &trailers,
			&p.Hidden, &p.RegisteredAt, &p.UpdatedAt, &p.Version); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan work: %w", err)
		}
		if deadline != nil {
			p.EventDeadline = deadline.UTC()
		}
		p.RegisteredAt = p.RegisteredAt.UTC()
		p.UpdatedAt = p.UpdatedAt.UTC()
		_ = json.Unmarshal(related, &p.Related)
		_ = json.Unmarshal(notices, &p.Notices)
		_ = json.Unmarshal(trailers, &p.Trailers)
		if len(p.Related) == 0 {
			p.Related = nil
		}
		if len(p.Weekdays) == 0 {
			p.Weekdays = nil
		}
		if len(p.Keywords) == 0 {
			p.Keywords = nil
		}
		if len(p.EventIDs) == 0 {
			p.EventIDs = nil
		}
		out[p.PID] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load works: %w", err)
	}
	if len(out) == 0 {
		return out, nil
	}
	rows, err = q.Query(ctx, `SELECT wa.pid, wa.author_id, a.name, wa.is_writer, wa.is_painter, wa.is_original_writer
		FROM work_authors wa JOIN authors a ON a.id = wa.author_id WHERE wa.pid = ANY($1) ORDER BY wa.pid, wa.ord`, pids)
	if err != nil {
		return nil, fmt.Errorf("load work authors: %w", err)
	}
	for rows.Next() {
		var pid string
		var a contract.Author
		if err := rows.Scan(&pid, &a.AuthorID, &a.AuthorName, &a.IsWriter, &a.IsPainter, &a.IsOriginalWriter); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan work author: %w", err)
		}
		if p := out[pid]; p != nil {
			p.Authors = append(p.Authors, a)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load work authors: %w", err)
	}
	rows, err = q.Query(ctx, `SELECT `+volumeCols+` FROM volumes WHERE pid = ANY($1) ORDER BY pid, no`, pids)
	if err != nil {
		return nil, fmt.Errorf("load volumes: %w", err)
	}
	for rows.Next() {
		var pid string
		var v contract.Volume
		if err := rows.Scan(&pid, &v.No, &v.Title, &v.ReleaseAt, &v.IsFree, &v.BuyPrice, &v.BuyPriceOrg, &v.RentPrice,
			&v.RentPriceOrg, &v.Pages, &v.ContentBase, &v.PreviewPages); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan volume: %w", err)
		}
		v.ReleaseAt = v.ReleaseAt.UTC()
		if p := out[pid]; p != nil {
			p.Volumes = append(p.Volumes, v)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load volumes: %w", err)
	}
	if err := loadContentVersions(ctx, q, pids, out); err != nil {
		return nil, err
	}
	return out, nil
}

// loadContentVersions gives each volume its processed content's version
// (writer/media: the current one, and the replaced ones in their grace
// period); a version not yet in media_versions (a volume still in the
// shape of before, being converted) is not named.
func loadContentVersions(ctx context.Context, q Querier, pids []string, out map[string]*contract.Product) error {
	rows, err := q.Query(ctx, `SELECT v.pid, v.no, v.ver, v.retire_at FROM volume_media v
		WHERE v.pid = ANY($1) AND NOT v.removed AND EXISTS (SELECT 1 FROM media_versions m WHERE m.ver = v.ver)
		ORDER BY v.pid, v.no, v.created_at DESC`, pids)
	if err != nil {
		return fmt.Errorf("load content versions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pid, ver string
		var no int
		var retireAt *time.Time
		if err := rows.Scan(&pid, &no, &ver, &retireAt); err != nil {
			return fmt.Errorf("scan content version: %w", err)
		}
		p := out[pid]
		if p == nil {
			continue
		}
		i, found := slices.BinarySearchFunc(p.Volumes, no, func(v contract.Volume, no int) int { return v.No - no })
		if !found {
			continue
		}
		v := &p.Volumes[i]
		if retireAt == nil {
			v.ContentVer = ver
			continue
		}
		v.ContentRetired = append(v.ContentRetired, contract.RetiredContent{Ver: ver, Until: retireAt.UTC()})
	}
	return rows.Err()
}

// LoadProduct reads one product document.
func LoadProduct(ctx context.Context, q Querier, pid string, forUpdate bool) (*contract.Product, error) {
	m, err := LoadProducts(ctx, q, []string{pid}, forUpdate)
	if err != nil {
		return nil, err
	}
	p := m[pid]
	if p == nil {
		return nil, fmt.Errorf("product %s: %w", pid, ErrNotFound)
	}
	return p, nil
}

// BuildProducts is the outbox builder for prod.<pid> keys. Each work is
// published as its head under prod.<pid> and its volume pages under
// vols.<pid>.<i> (contract.SplitVolumes, clock now): the page keys are not
// among keys, and the relay publishes them to the volumes bucket before the
// head that names them (outbox.Relay). A page is at most 100 volumes, so a
// work of 10,000 episodes is a head of a few kilobytes and 100 pages, where
// it was one value NATS refused.
func BuildProducts(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	pids := make([]string, len(keys))
	for i, k := range keys {
		pids[i] = strings.TrimPrefix(k, contract.KeyProduct)
	}
	ps, err := LoadProducts(ctx, tx, pids, false)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	out := make(map[string][]byte, len(ps))
	for pid, p := range ps {
		head, pages := contract.SplitVolumes(p, now)
		b, err := json.Marshal(&head)
		if err != nil {
			return nil, fmt.Errorf("marshal product %s: %w", pid, err)
		}
		out[contract.ProductKey(pid)] = b
		for i := range pages {
			b, err := json.Marshal(&pages[i])
			if err != nil {
				return nil, fmt.Errorf("marshal volume page %s/%d: %w", pid, i, err)
			}
			out[contract.VolumePageKey(pid, pages[i].Index)] = b
		}
	}
	return out, nil
}

// TouchProducts bumps the version of works whose document derives from other
// tables (reviews, zzim counters) and enqueues them.
func TouchProducts(ctx context.Context, tx pgx.Tx, pids ...string) error {
	if _, err := tx.Exec(ctx, `UPDATE works SET version = nextval('catalog_version') WHERE pid = ANY($1)`, pids); err != nil {
		return fmt.Errorf("touch products: %w", err)
	}
	keys := make([]string, len(pids))
	for i, p := range pids {
		keys[i] = contract.ProductKey(p)
	}
	return outbox.Doc(ctx, tx, keys...)
}

// RepublishAll enqueues every work's document (hidden ones included) for the
// relay to build and publish again, in pid order, and wakes every node's
// relay: the writer's full rebuild of the catalog's works (`writer
// republish`; migration 0135 does the same). A head already in the bucket
// keeps the relay from sending again the pages it names with the same hash,
// so a rebuild over a complete bucket writes heads only, and one over an
// empty or inline bucket writes every page. It returns how many works.
func RepublishAll(ctx context.Context, tx pgx.Tx) (int64, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO outbox (kind, key) SELECT 'kv', $1 || pid FROM works ORDER BY pid`, contract.KeyProduct)
	if err != nil {
		return 0, fmt.Errorf("enqueue every work: %w", err)
	}
	if err := outbox.Notify(ctx, tx); err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// normalizeAltTitles trims a work's alternative titles and refuses empty,
// over-long, repeated ones (or the title itself) and more than
// contract.MaxAltTitles: each is matched by every edge's search, so each
// must be a name a reader would type.
func normalizeAltTitles(p *contract.Product) error {
	if len(p.AltTitles) > contract.MaxAltTitles {
		return invalid("at most %d altTitles", contract.MaxAltTitles)
	}
	seen := map[string]bool{p.Title: true}
	for i, t := range p.AltTitles {
		t = strings.TrimSpace(t)
		switch {
		case t == "" || len([]rune(t)) > 200:
			return invalid("altTitles must be 1-200 characters each")
		case seen[t]:
			return invalid("altTitles must differ from the title and each other: %q", t)
		}
		seen[t] = true
		p.AltTitles[i] = t
	}
	if len(p.AltTitles) == 0 {
		p.AltTitles = nil
	}
	return nil
}
