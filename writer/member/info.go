package member

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/auth"
	"storefront/writer/enrich"
	"storefront/writer/httpapi"
	"storefront/writer/money"
	"storefront/writer/outbox"
)

// Bonus is a join-bonus or first-charge banner.
type Bonus struct {
	Valid  bool   `json:"valid"`
	ImgURL string `json:"img_url"`
}

// EventBanner is the side info's event banner.
type EventBanner struct {
	IsEvent bool   `json:"isEvent"`
	RetURL  string `json:"retUrl"`
	ImgURL  string `json:"imgUrl"`
}

// SideInfo is the info object of user-get-info (seed §7).
type SideInfo struct {
	BlueMoney       int64       `json:"bluemoney"`
	AppMoneyA       int64       `json:"appmoney_a"`
	AppMoneyI       int64       `json:"appmoney_i"`
	BlueMileage     int64       `json:"blueMileage"`
	FlagTicketNovel bool        `json:"flag_ticket_novel"`
	FlagTicketComic bool        `json:"flag_ticket_comic"`
	NewAlarm        bool        `json:"new_alarm"`
	NewGift         bool        `json:"new_gift"`
	JoinBonus       Bonus       `json:"join_bonus"`
	FirstBill       Bonus       `json:"firstbill"`
	EventBannerInfo EventBanner `json:"eventBannerInfo"`
	// ShownMoney names the money the request's channel shows and spends
	// (contract.MoneyFor): the page shows that balance instead of deciding
	// again. Not in the seed's answer; added so one rule serves both tiers.
	ShownMoney string `json:"shownMoney"`
	// FirstChargeBonusPct is the first-charge bonus in percent, for the
	// page to show the bonus before the member pays (0 for visitors).
	FirstChargeBonusPct int64 `json:"firstChargeBonusPct"`
}

// AutoPaymentInfo is the answer's auto_payment_info.
type AutoPaymentInfo struct {
	IsUse        bool   `json:"is_use"`
	Type         string `json:"type"`
	Money        int64  `json:"money"`
	TriggerValue int64  `json:"trigger_value"`
	// PausedReason: why a failed top-up turned the setting off (issue 32).
	PausedReason string `json:"paused_reason,omitempty"`
}

// GuestSideInfo is the side info of visitors and guests: numbers 0, newGift true.
func GuestSideInfo() SideInfo { return SideInfo{NewGift: true} }

// userGetInfo answers the member summary (form-encoded: uid, channel, nai).
// Visitors and guests get the guest defaults.
func (s *Service) userGetInfo(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	switch p["nai"] {
	case "", "0", "19":
	default:
		return httpapi.BadRequest("연령 설정(nai)은 19 또는 0이어야 합니다.")
	}
	// The payload's channel is checked for form only; the header decides
	// which app's money the side info shows.
	if err := payloadChannel(p); err != nil {
		return err
	}
	channel, err := httpapi.Channel(r)
	if err != nil {
		return err
	}
	ans := struct {
		httpapi.Header200
		Info            SideInfo        `json:"info"`
		AutoPaymentInfo AutoPaymentInfo `json:"auto_payment_info"`
	}{Header200: ok(), Info: GuestSideInfo()}
	ans.Info.ShownMoney = contract.MoneyFor(channel)
	if _, logged := s.auth.UserID(r); !logged && p["uid"] == "" {
		return httpapi.JSON(w, http.StatusOK, ans)
	}
	uid, err := s.auth.CheckUID(r, p["uid"])
	if err != nil {
		return err
	}
	u, err := s.auth.LoadUser(r.Context(), uid)
	if err != nil {
		return err
	}
	if u.LoginType == "D" {
		return httpapi.JSON(w, http.StatusOK, ans)
	}
	si, err := s.money.SideInfo(r.Context(), uid, channel)
	if err != nil {
		return err
	}
	gifts, err := s.money.GiftBox(r.Context(), uid)
	if err != nil {
		return err
	}
	// The sidebar's 새 알림: an unread item in the inbox the badge opens
	// (a release of a work whose alarm is on or whose author the member
	// follows), as the member's audience may see it.
	teen, err := s.teenView(r, p)
	if err != nil {
		return err
	}
	unread, err := s.unreadCount(r, uid, teen)
	if err != nil {
		return err
	}
	newAlarm := unread > 0
	ans.Info = SideInfo{
		BlueMoney: si.Blue, AppMoneyA: si.Android, AppMoneyI: si.IOS, BlueMileage: si.Mileage,
		FlagTicketNovel: si.NovelTickets > 0, FlagTicketComic: si.ComicTickets > 0,
		NewAlarm: newAlarm, NewGift: len(gifts) > 0,
		JoinBonus: Bonus(si.JoinBonus), FirstBill: Bonus(si.FirstBill),
		EventBannerInfo: EventBanner{IsEvent: si.FirstBill.Valid, RetURL: "/payment/recharge.asp", ImgURL: si.FirstBill.ImgURL},
		ShownMoney:      si.Shown, FirstChargeBonusPct: si.FirstChargeBonusPct,
	}
	ans.AutoPaymentInfo = AutoPaymentInfo(si.AutoPayment)
	return httpapi.JSON(w, http.StatusOK, ans)
}

// TrackingProfile is the member profile the page sends to the analytics feed
// (/iam/v2/user-info): 27 fields.
type TrackingProfile struct {
	UID             string `json:"uid"`
	Channel         string `json:"channel"`
	MemberType      string `json:"memberType"`
	LoginType       string `json:"loginType"`
	LoginPlatform   string `json:"loginPlatform"`
	LoginCount      int    `json:"loginCount"`
	LastLoginDate   string `json:"lastLoginDate"`
	JoinDate        string `json:"joinDate"`
	BlueMoney       int64  `json:"blueMoney"`
	AndroidMoney    int64  `json:"androidMoney"`
	IOSMoney        int64  `json:"iosMoney"`
	BlueMileage     int64  `json:"blueMileage"`
	FirstChargeDate string `json:"firstChargeDate"`
	LastChargeDate  string `json:"lastChargeDate"`
	ChargeCount     int    `json:"chargeCount"`
	Age             int    `json:"age"`
	Gender          string `json:"gender"`
	HasTicket       bool   `json:"hasTicket"`
	AutoPayUse      bool   `json:"autoPayUse"`
	AutoPayType     string `json:"autoPayType"`
	MarketingAgree  bool   `json:"marketingAgree"`
	AdultVerified   bool   `json:"adultVerified"`
	AdultLevel      int    `json:"adultLevel"`
	Is19Toggle      bool   `json:"is19Toggle"`
	ZzimCount       int    `json:"zzimCount"`
	ReviewCount     int    `json:"reviewCount"`
	InterestGenres  string `json:"interestGenres"`
}

func day(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.In(contract.KST).Format("2006-01-02")
}

// trackingProfile answers the session member's tracking profile (401 for visitors).
func (s *Service) trackingProfile(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	channel, err := httpapi.Channel(r)
	if err != nil {
		return err
	}
	tp, err := Profile(r.Context(), s.pool, uid, channel, s.now())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		UserInfo TrackingProfile `json:"userInfo"`
	}{ok(), tp})
}

// Querier is a pool or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Profile builds uid's tracking profile through q: the pool for the page's
// GET, the transaction of a login or charge for the member_profile event (it
// sees that transaction's changes). channel is the request's; empty means
// the channel of the member's last login.
func Profile(ctx context.Context, q Querier, uid int64, channel string, now time.Time) (TrackingProfile, error) {
	u, err := auth.ReadUser(ctx, q, uid)
	if err != nil {
		return TrackingProfile{}, err
	}
	if channel == "" {
		channel = u.LastChannel
	}
	f, err := money.LoadProfileFacts(ctx, q, uid, now)
	if err != nil {
		return TrackingProfile{}, err
	}
	tp := TrackingProfile{
		UID: strconv.FormatInt(uid, 10), Channel: channel, LoginType: u.LoginType, LoginPlatform: u.Provider,
		LoginCount: u.LoginCount, LastLoginDate: day(u.LastLoginAt), JoinDate: day(&u.CreatedAt),
		BlueMoney: f.Wallet.Blue, AndroidMoney: f.Wallet.Android, IOSMoney: f.Wallet.IOS, BlueMileage: f.Wallet.Mileage,
		FirstChargeDate: day(f.FirstChargeAt), LastChargeDate: day(f.LastChargeAt), ChargeCount: f.ChargeCount,
		Age: u.Age(now), Gender: u.Gender, HasTicket: f.ComicTickets+f.NovelTickets > 0,
		AutoPayUse: f.AutoPayment.IsUse, AutoPayType: f.AutoPayment.Type, MarketingAgree: u.MarketingAgree,
		AdultVerified: u.AuthReal, AdultLevel: u.AdultLevel(now), Is19Toggle: u.Toggle19,
	}
	switch {
	case u.LoginType == "D":
		tp.MemberType = "guest"
	case tp.AdultLevel >= 2:
		tp.MemberType = "adult"
	default:
		tp.MemberType = "member"
	}
	var genres []string
	if err := q.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM zzims WHERE uid = $1),
		(SELECT count(*) FROM reviews WHERE uid = $1 AND NOT deleted),
		coalesce((SELECT genres FROM interest_genres WHERE uid = $1), '{}')`, uid).Scan(&tp.ZzimCount, &tp.ReviewCount, &genres); err != nil {
		return TrackingProfile{}, fmt.Errorf("profile counts of %d: %w", uid, err)
	}
	tp.InterestGenres = strings.Join(genres, ",")
	return tp, nil
}

// Props is the profile as event props: every field under its JSON name,
// numbers in decimal, booleans "true"/"false" (analytics keeps props as
// strings: props_keys / props_values).
func (tp TrackingProfile) Props() map[string]string {
	b, _ := json.Marshal(tp)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	_ = d.Decode(&m)
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// EnqueueProfile enqueues uid's member_profile event (the 27 profile fields
// as props) in tx, the transaction that changed what the profile shows, so
// the event is published exactly when that change commits. The channel is
// the request's (writer/enrich), else the member's last.
func EnqueueProfile(ctx context.Context, tx pgx.Tx, uid int64, now time.Time) error {
	tp, err := Profile(ctx, tx, uid, enrich.From(ctx).Channel, now)
	if err != nil {
		return err
	}
	return outbox.Event(ctx, tx, contract.TrackedEvent{Type: contract.EvMemberProfile, Time: now.UTC(),
		UID: tp.UID, MemberType: tp.MemberType, Channel: tp.Channel, Props: tp.Props()})
}
