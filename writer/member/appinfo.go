package member

import (
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// The seed's ticket-info and charge_banner calls (§7, "not shown") with
// designed answers: what a reader of the ticket box and of the charge page needs.
const (
	TicketInfoPath   = UserInfoPrefix + "ticket-info"
	ChargeBannerPath = "/protocol/api/v-2/charge/charge_banner.asp"
)

// Ticket is one grant of comic or novel tickets the member holds.
type Ticket struct {
	ID          int64     `json:"id"`
	Section     string    `json:"section"`
	PID         string    `json:"pid,omitempty"`
	EID         int64     `json:"eid,omitempty"`
	Count       int       `json:"count"`
	UsedCnt     int       `json:"usedCnt"`
	LeftCnt     int       `json:"leftCnt"`
	AvailableAt time.Time `json:"availableAt"`
	ExpireAt    time.Time `json:"expireAt"`
}

// TicketInfo is the info of ticket-info: the side info's ticket flags with
// the counts behind them and the grants, soonest to expire first.
type TicketInfo struct {
	FlagTicketComic bool     `json:"flag_ticket_comic"`
	FlagTicketNovel bool     `json:"flag_ticket_novel"`
	ComicTicketCnt  int      `json:"comic_ticket_cnt"`
	NovelTicketCnt  int      `json:"novel_ticket_cnt"`
	List            []Ticket `json:"list"`
}

// ticketInfo answers the member's usable tickets (uid must be the session's;
// section 만화/소설/CM/EB narrows the list).
func (s *Service) ticketInfo(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	uid, err := s.auth.CheckUID(r, p["uid"])
	if err != nil {
		return err
	}
	section := ""
	if v := p["section"]; v != "" {
		sec, ok := sectionOf(v)
		if !ok || sec == contract.SectionWebtoon {
			return httpapi.BadRequest("작품 구분(section)은 만화 또는 소설이어야 합니다.")
		}
		section = sec
	}
	now := s.now()
	rows, err := s.pool.Query(r.Context(), `SELECT id, section, pid, eid, count, used_cnt, available_at, expires_at
		FROM coupon_grants WHERE uid = $1 AND kind = 'ticket' AND is_recv AND used_cnt < count
		AND available_at <= $2 AND expires_at > $2 AND ($3 = '' OR section = $3)
		ORDER BY expires_at, id`, uid, now, section)
	if err != nil {
		return fmt.Errorf("list tickets of %d: %w", uid, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Ticket, error) {
		var t Ticket
		err := row.Scan(&t.ID, &t.Section, &t.PID, &t.EID, &t.Count, &t.UsedCnt, &t.AvailableAt, &t.ExpireAt)
		t.LeftCnt = t.Count - t.UsedCnt
		return t, err
	})
	if err != nil {
		return fmt.Errorf("list tickets of %d: %w", uid, err)
	}
	info := TicketInfo{List: list}
	for _, t := range list {
		switch t.Section {
		case contract.SectionComic:
			info.ComicTicketCnt += t.LeftCnt
		case contract.SectionNovel:
			info.NovelTicketCnt += t.LeftCnt
		}
	}
	info.FlagTicketComic, info.FlagTicketNovel = info.ComicTicketCnt > 0, info.NovelTicketCnt > 0
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Info TicketInfo `json:"info"`
	}{ok(), info})
}

// ChargeBanner is one banner of the charge page.
type ChargeBanner struct {
	Type    string `json:"type"` // joinbonus or firstcharge
	EID     int64  `json:"eid"`
	IsEvent bool   `json:"isEvent"`
	Title   string `json:"title"`
	Body    string `json:"body"`
	ImgURL  string `json:"imgUrl"`
	RetURL  string `json:"retUrl"`
}

// chargeBanner answers the banners the charge page shows: the running join
// and first-charge events the reader can still take (a member who charged
// before no longer sees the first-charge one, nor one who took the join
// bonus that one). Neither shows in the iOS app (seed §6); the channel comes
// from the header only.
func (s *Service) chargeBanner(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	// A visitor may ask without a uid; a uid, when given, must be the
	// session's, or a reader could learn which banners another member may
	// still take.
	if p["uid"] != "" {
		if _, err := s.auth.CheckUID(r, p["uid"]); err != nil {
			return err
		}
	}
	channel, err := httpapi.Channel(r)
	if err != nil {
		return err
	}
	list := []ChargeBanner{}
	ans := func() error {
		return httpapi.JSON(w, http.StatusOK, struct {
			httpapi.Header200
			List []ChargeBanner `json:"list"`
		}{ok(), list})
	}
	if channel == "IA" {
		return ans()
	}
	join, first := true, true
	if uid, logged := s.auth.UserID(r); logged {
		si, err := s.money.SideInfo(r.Context(), uid, channel)
		if err != nil {
			return err
		}
		join, first = si.JoinBonus.Valid, si.FirstBill.Valid
	}
	now := s.now()
	rows, err := s.pool.Query(r.Context(), `SELECT eid, kind, title, body, banner_url FROM events
		WHERE kind = ANY($1) AND start_at <= $2 AND end_at > $2 ORDER BY eid`,
		[]string{contract.EventJoin, contract.EventFirstCharge}, now)
	if err != nil {
		return fmt.Errorf("list charge events: %w", err)
	}
	evs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ChargeBanner, error) {
		var b ChargeBanner
		err := row.Scan(&b.EID, &b.Type, &b.Title, &b.Body, &b.ImgURL)
		return b, err
	})
	if err != nil {
		return fmt.Errorf("list charge events: %w", err)
	}
	for _, b := range evs {
		switch {
		case b.Type == contract.EventJoin && join:
			b.Type, b.RetURL = "joinbonus", "/join/event.asp"
		case b.Type == contract.EventFirstCharge && first:
			b.Type, b.RetURL = "firstcharge", "/payment/recharge.asp"
		default:
			continue
		}
		b.IsEvent = true
		list = append(list, b)
	}
	return ans()
}
