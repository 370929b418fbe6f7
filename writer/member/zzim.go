package member

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/catalog"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
)

func zzimType(p httpapi.Params) (string, error) {
	switch t := strings.TrimSpace(p["zzim_type"]); t {
	case "", "prod":
		return "prod", nil
	case "author":
		return t, nil
	}
	return "", httpapi.BadRequest("찜 종류(zzim_type)는 prod 또는 author여야 합니다.")
}

// zzimAdd adds a work or an author to the member's zzim list; adding twice answers
// the existing idx. Answer: header, idx.
func (s *Service) zzimAdd(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	uid, err := s.auth.CheckUID(r, p["uid"])
	if err != nil {
		return err
	}
	zt, err := zzimType(p)
	if err != nil {
		return err
	}
	target, err := p.Require("pid")
	if err != nil {
		return err
	}
	ctx := r.Context()
	section := ""
	if zt == "prod" {
		wk, err := loadWork(ctx, s.pool, target)
		if err != nil {
			return err
		}
		if v := p["section"]; v != "" && v != "all" {
			sec, ok := sectionOf(v)
			if !ok {
				return httpapi.BadRequest("분류(section)는 소설, 만화, 웹툰 중 하나여야 합니다.")
			}
			if sec != wk.section {
				return httpapi.BadRequest("작품의 분류(section)와 맞지 않습니다.")
			}
		}
		section = wk.section
	} else {
		id, err := strconv.ParseInt(target, 10, 64)
		if err != nil || id <= 0 {
			return httpapi.BadRequest("작가 찜에는 작가 ID를 보내 주세요.")
		}
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM authors WHERE id = $1`, id).Scan(&n); err != nil {
			return fmt.Errorf("find author: %w", err)
		}
		if n == 0 {
			return httpapi.Errorf(http.StatusNotFound, "작가를 찾을 수 없습니다.")
		}
	}
	var idx int64
	err = s.tx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO zzims (uid, zzim_type, target, section, created_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (uid, zzim_type, target) DO NOTHING RETURNING idx`, uid, zt, target, section, s.now()).Scan(&idx)
		if errors.Is(err, pgx.ErrNoRows) {
			return tx.QueryRow(ctx, `SELECT idx FROM zzims WHERE uid = $1 AND zzim_type = $2 AND target = $3`, uid, zt, target).Scan(&idx)
		}
		if err != nil {
			return fmt.Errorf("add zzim: %w", err)
		}
		if zt == "prod" {
			if _, err := tx.Exec(ctx, `UPDATE works SET zzim_count = zzim_count + 1 WHERE pid = $1`, target); err != nil {
				return fmt.Errorf("count zzim: %w", err)
			}
			if err := catalog.TouchStats(ctx, tx, target); err != nil {
				return err
			}
		}
		return outbox.Event(ctx, tx, contract.TrackedEvent{Type: contract.EvZzim, Time: s.now().UTC(), UID: strconv.FormatInt(uid, 10),
			PID: pidIfProd(zt, target), Section: section, Channel: strings.ToUpper(r.Header.Get(contract.HeaderChannel)),
			Props: map[string]string{"action": "add", "zzimType": zt, "target": target}})
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Idx int64 `json:"idx"`
	}{ok(), idx})
}

func pidIfProd(zt, target string) string {
	if zt == "prod" {
		return target
	}
	return ""
}

// parseIdxs reads "1,2,3" (a JSON array arrives joined the same way).
func parseIdxs(v string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n <= 0 {
			return nil, httpapi.BadRequest("찜 번호(idxs)가 올바르지 않습니다.")
		}
		out = append(out, n)
	}
	if len(out) == 0 || len(out) > 1000 {
		return nil, httpapi.BadRequest("찜 번호(idxs)는 1개부터 1000개까지 보낼 수 있습니다.")
	}
	return out, nil
}

// zzimDel removes zzim entries by idx; only the member's own entries are touched.
func (s *Service) zzimDel(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	uid, err := s.auth.CheckUID(r, p["uid"])
	if err != nil {
		return err
	}
	zt, err := zzimType(p)
	if err != nil {
		return err
	}
	raw := p["idxs"]
	if raw == "" {
		raw = p["idx"]
	}
	idxs, err := parseIdxs(raw)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.tx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM zzims WHERE uid = $1 AND zzim_type = $2 AND idx = ANY($3) RETURNING target`, uid, zt, idxs)
		if err != nil {
			return fmt.Errorf("delete zzims: %w", err)
		}
		targets, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("delete zzims: %w", err)
		}
		if len(targets) == 0 {
			return nil
		}
		if zt == "prod" {
			if _, err := tx.Exec(ctx, `UPDATE works SET zzim_count = GREATEST(zzim_count - 1, 0) WHERE pid = ANY($1)`, targets); err != nil {
				return fmt.Errorf("count zzims: %w", err)
			}
			if err := catalog.TouchStats(ctx, tx, targets...); err != nil {
				return err
			}
		}
		for _, t := range targets {
			if err := outbox.Event(ctx, tx, contract.TrackedEvent{Type: contract.EvZzim, Time: s.now().UTC(), UID: strconv.FormatInt(uid, 10),
				PID: pidIfProd(zt, t), Props: map[string]string{"action": "del", "zzimType": zt, "target": t}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// ZzimEntry is the seed's zzim entry.
type ZzimEntry struct {
	ID  int64  `json:"id"`
	PID string `json:"pid"`
}

// zzimList lists the member's zzim entries, newest first, filtered by section and by
// what the member's adult level and channel may show.
func (s *Service) zzimList(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	uid, err := s.auth.CheckUID(r, p["uid"])
	if err != nil {
		return err
	}
	zt, err := zzimType(p)
	if err != nil {
		return err
	}
	lvl, err := p.Int("adultLevel", 0)
	if err != nil || lvl < 0 || lvl > 3 {
		return httpapi.BadRequest("성인 등급(adultLevel)은 0부터 3까지입니다.")
	}
	section := ""
	if v := p["section"]; v != "" && v != "all" && v != "ALL" {
		sec, ok := sectionOf(v)
		if !ok {
			return httpapi.BadRequest("분류(section)는 all, 소설, 만화, 웹툰 중 하나여야 합니다.")
		}
		section = sec
	}
	// The seed's payload names a channel and a level: both are checked for
	// form and ignored. What is shown is decided by the session's level and
	// the X-Channel header alone, as at the edge (an app reader writing
	// channel=AW must not see adult works).
	teen, err := s.teenView(r, p)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var rows pgx.Rows
	if zt == "prod" {
		rows, err = s.pool.Query(ctx, `SELECT z.idx, z.target FROM zzims z JOIN works w ON w.pid = z.target
			WHERE z.uid = $1 AND z.zzim_type = 'prod' AND NOT w.hidden AND ($2 = '' OR w.section = $2) AND (NOT $3 OR w.age < 19)
			ORDER BY z.idx DESC LIMIT 5000`, uid, section, teen)
	} else {
		rows, err = s.pool.Query(ctx, `SELECT idx, target FROM zzims WHERE uid = $1 AND zzim_type = 'author' ORDER BY idx DESC LIMIT 5000`, uid)
	}
	if err != nil {
		return fmt.Errorf("list zzims: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ZzimEntry, error) {
		var e ZzimEntry
		return e, row.Scan(&e.ID, &e.PID)
	})
	if err != nil {
		return fmt.Errorf("list zzims: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		ZzimList []ZzimEntry `json:"zzimList"`
	}{ok(), list})
}

func parseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "y", "on", "true", "1":
		return true, true
	case "n", "off", "false", "0":
		return false, true
	}
	return false, false
}

// alarmSet turns the new-volume alarm of a work on or off (toggles when the
// caller gives no value). Answer: header, isAlarm.
func (s *Service) alarmSet(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	uid, err := s.auth.CheckUID(r, p["uid"])
	if err != nil {
		return err
	}
	pid, err := p.Require("pid")
	if err != nil {
		return err
	}
	ctx := r.Context()
	wk, err := loadWork(ctx, s.pool, pid)
	if err != nil {
		return err
	}
	raw := p["isAlarm"]
	if raw == "" {
		raw = p["alarm"]
	}
	var on bool
	if raw != "" {
		v, okv := parseBool(raw)
		if !okv {
			return httpapi.BadRequest("알림 설정(isAlarm)은 Y 또는 N이어야 합니다.")
		}
		on = v
	}
	// An alarm rings with the work's title on the lock screen: a member who
	// may not see an adult work cannot turn one on (issue 30); turning it off
	// stays open to them (their level may have dropped since).
	if contract.AdultAge(wk.age) && (on || raw == "") {
		if err := s.adultAlarm(ctx, r, p, uid, pid, raw == ""); err != nil {
			return err
		}
	}
	if raw != "" {
		_, err = s.pool.Exec(ctx, `INSERT INTO alarms (uid, pid, is_on, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (uid, pid) DO UPDATE SET is_on = EXCLUDED.is_on, updated_at = EXCLUDED.updated_at`, uid, pid, on, s.now())
	} else {
		err = s.pool.QueryRow(ctx, `INSERT INTO alarms (uid, pid, is_on, updated_at) VALUES ($1, $2, true, $3)
			ON CONFLICT (uid, pid) DO UPDATE SET is_on = NOT alarms.is_on, updated_at = EXCLUDED.updated_at RETURNING is_on`, uid, pid, s.now()).Scan(&on)
	}
	if err != nil {
		return fmt.Errorf("set alarm: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsAlarm bool `json:"isAlarm"`
	}{ok(), on})
}

// Refusals of an adult work's alarm (HTTP 403), worded like the purchase's
// (writer/money/audience.go) by the gate the reader would meet.
var msgAdultAlarm = map[string]string{
	contract.GateNotInApp: "청소년 이용 불가 작품입니다. 이 앱에서는 성인 작품의 알림을 받을 수 없습니다.",
	contract.GateTeen:     "청소년 이용 불가 작품입니다. 만 19세 미만은 성인 작품의 알림을 받을 수 없습니다.",
	contract.GateToggle:   "청소년 이용 불가 작품입니다. 성인 작품 보기(19)를 켜면 알림을 받을 수 있습니다.",
	contract.GateVerify:   "청소년 이용 불가 작품입니다. 19세 이상 성인 인증 후 알림을 받을 수 있습니다.",
}

// adultAlarm refuses to turn on the alarm of an adult work for a member who
// may not see it (the session's level now and X-Channel, as the edge decides
// every answer). A toggle that would turn an alarm off passes.
func (s *Service) adultAlarm(ctx context.Context, r *http.Request, p httpapi.Params, uid int64, pid string, toggle bool) error {
	if err := payloadChannel(p); err != nil {
		return err
	}
	channel, err := httpapi.Channel(r)
	if err != nil {
		return err
	}
	level, err := s.userLevel(r)
	if err != nil {
		return err
	}
	gate := contract.AdultGate(contract.AdultChannel(channel), true, level)
	if gate == contract.GateNone {
		return nil
	}
	if toggle {
		var isOn bool
		err := s.pool.QueryRow(ctx, `SELECT is_on FROM alarms WHERE uid = $1 AND pid = $2`, uid, pid).Scan(&isOn)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read alarm: %w", err)
		}
		if isOn {
			return nil // the toggle turns it off
		}
	}
	msg, ok := msgAdultAlarm[gate]
	if !ok {
		msg = msgAdultAlarm[contract.GateVerify]
	}
	return httpapi.Errorf(http.StatusForbidden, "%s", msg)
}

// webVersion answers the web version code in the header (seed: header.version).
func (s *Service) webVersion(w http.ResponseWriter, r *http.Request) error {
	var cfg contract.SiteConfig
	_, err := catalog.LoadSiteDoc(r.Context(), s.pool, contract.KeySiteConfig, &cfg)
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		return err
	}
	if cfg.WebVersionCode == 0 {
		cfg.WebVersionCode = DefaultWebVersion
	}
	return httpapi.JSON(w, http.StatusOK, map[string]any{"header": map[string]any{"code": 200, "message": "", "version": cfg.WebVersionCode}})
}

// DefaultWebVersion is the seed's app version (24) until an admin sets one.
const DefaultWebVersion = 24
