package money

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"storefront/contract"
	"storefront/realip"
	"storefront/writer/httpapi"
)

// IdempotencyHeader names the header every money-moving call carries.
const IdempotencyHeader = "Idempotency-Key"

// maxBody bounds request bodies of money calls.
const maxBody = 16 << 10

// Routes registers the money endpoints on mux. user returns the session's uid;
// identity never comes from the body (a body uid that differs is 403).
//
//	GET    /home/api/v1/wallet                        balances, shown money, bonuses, auto-payment
//	GET    /home/api/v1/wallet/ledger?before=&limit=  ledger rows, newest first
//	POST   /home/api/v1/wallet/join-bonus             claim the join bonus (once)
//	GET    /home/api/v1/wallet/auto-payment           auto-payment setting
//	PUT    /home/api/v1/wallet/auto-payment           {is_use,type,money,trigger_value}
//	POST   /home/api/v1/charge/requests               {amount,successUrl?,failUrl?}  Idempotency-Key
//	POST   /home/api/v1/charge/confirm                {orderId,paymentKey,amount}    Idempotency-Key
//	POST   /home/api/v1/charge/{orderId}/cancel                                      Idempotency-Key
//	GET    /home/api/v1/charge/history
//	GET    /home/api/v1/charge/{orderId}              one charge (status after the gateway redirect)
//	POST   /home/api/v1/charge/webhook                the gateway's signed webhook (no session)
//	POST   /home/api/v1/purchases                     {pid,vols|all,buyType R|B|T}  Idempotency-Key
//	GET    /home/api/v1/purchases?type=buy|rental&before=&limit=
//	GET    /home/api/v1/purchases/status?pid=         volList auth, left-over amounts
//	POST   /protocol/api/v-1/product/download-auth.asp  pid, vol (form or JSON)
//	GET    /home/api/v1/coupons?pid=                  WCPInfo, RCPInfo, PCPInfo
//	POST   /home/api/v1/coupons/use                   {pid,vol,kind wff|read|pass|jumping} Idempotency-Key
//	GET    /home/api/v1/coupons/gifts                 gift box
//	POST   /home/api/v1/coupons/gifts/{id}/receive
//	GET    /home/api/v1/coupons/events?kind=          running coupon events with claim state
//	POST   /home/api/v1/coupons/events/{eid}/claim
//	POST   /home/api/v1/coupons/jumping-pass          buy a jumping pass ({} or no body)  Idempotency-Key
//	POST   /home/api/v1/contents/comic/honey-benefit     {eid}  claim a comic honey-benefit event
//	POST   /home/api/v1/contents/comic/heroism/coupons   {eid}  claim a comic heroism event
//	POST   /home/api/v1/wallet/cards/registration, POST|GET /home/api/v1/wallet/cards,
//	DELETE /home/api/v1/wallet/cards/{id}, GET /home/api/v1/wallet/notices   (billinghttp.go)
func (s *Service) Routes(mux httpapi.Mux, user func(*http.Request) (uid int64, ok bool)) {
	h := func(pattern string, fn func(w http.ResponseWriter, r *http.Request, uid int64) error) {
		mux.Handle(pattern, s.handler(user, fn))
	}
	// Routes that take no body: a sent one must be empty or {} (httpapi.NoBody).
	nb := func(pattern string, fn func(w http.ResponseWriter, r *http.Request, uid int64) error) {
		mux.Handle(pattern, httpapi.NoBody(s.handler(user, fn)))
	}
	h("GET /home/api/v1/wallet", s.getWallet)
	h("GET /home/api/v1/wallet/ledger", s.getLedger)
	nb("POST /home/api/v1/wallet/join-bonus", s.postJoinBonus)
	h("GET /home/api/v1/wallet/auto-payment", s.getAutoPayment)
	h("PUT /home/api/v1/wallet/auto-payment", s.putAutoPayment)
	h("POST /home/api/v1/charge/requests", s.postCharge)
	h("POST /home/api/v1/charge/confirm", s.postConfirm)
	h("POST /home/api/v1/charge/{orderId}/cancel", s.postCancel)
	h("GET /home/api/v1/charge/history", s.getCharges)
	h("GET /home/api/v1/charge/{orderId}", s.getCharge)
	mux.Handle("POST "+WebhookPath, s.handler(func(*http.Request) (int64, bool) { return 0, true }, s.postWebhook))
	h("POST /home/api/v1/purchases", s.postPurchase)
	h("GET /home/api/v1/purchases", s.getPurchases)
	h("GET /home/api/v1/purchases/status", s.getStatus)
	h("POST /protocol/api/v-1/product/download-auth.asp", s.postDownloadAuth)
	h("GET /home/api/v1/coupons", s.getCoupons)
	h("POST /home/api/v1/coupons/use", s.postCouponUse)
	h("GET /home/api/v1/coupons/gifts", s.getGifts)
	nb("POST /home/api/v1/coupons/gifts/{id}/receive", s.postReceive)
	h("GET /home/api/v1/coupons/events", s.getEvents)
	nb("POST /home/api/v1/coupons/events/{eid}/claim", s.postClaim)
	h("POST /home/api/v1/coupons/jumping-pass", s.postJumpingPass)
	h("POST /home/api/v1/contents/comic/honey-benefit", s.postKindClaim(contract.EventHoneyBenefit))
	h("POST /home/api/v1/contents/comic/heroism/coupons", s.postKindClaim(contract.EventHeroism))
	s.billingRoutes(h, nb)
}

func (s *Service) handler(user func(*http.Request) (int64, bool), fn func(http.ResponseWriter, *http.Request, int64) error) http.Handler {
	return httpapi.Wrap(s.log, func(w http.ResponseWriter, r *http.Request) error {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		uid, ok := user(r)
		switch {
		case !ok:
			return httpapi.ErrUnauthorized
		case r.URL.Query().Has("uid") && r.URL.Query().Get("uid") != uidString(uid):
			// A uid in the query must be the session's, like one in the body.
			return errNotSessionUID
		}
		return fn(w, r, uid)
	})
}

// errNotSessionUID refuses a uid (query or body) that is not the session's.
var errNotSessionUID = httpapi.Errorf(http.StatusForbidden, "로그인한 회원의 요청이 아닙니다.")

// writeJSON writes v with status 200.
func writeJSON(w http.ResponseWriter, v any) error { return httpapi.JSON(w, http.StatusOK, v) }

func writeAnswer(w http.ResponseWriter, a Answer) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if a.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(a.Status)
	_, err := w.Write(a.Body)
	return err
}

// decode is httpapi.DecodeJSONBytes after a money-only step: a compatibility
// uid field in the body must be the session's and is then dropped.
func decode(r *http.Request, uid int64, v any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return httpapi.ErrTooLarge
		}
		return httpapi.BadRequest("요청 내용을 읽을 수 없습니다.")
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "" && ct != "application/json" {
		return httpapi.Errorf(http.StatusUnsupportedMediaType, "요청 형식은 JSON(application/json)이어야 합니다.")
	}
	// UTF-8, no NUL, no key twice: {"uid":"<own>","uid":"<other>"} is
	// refused here, before the map below keeps one of them.
	if err := httpapi.CheckJSON(body); err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return httpapi.BadRequest("요청 형식(JSON)이 올바르지 않습니다. (객체여야 합니다)")
	}
	if raw, ok := obj["uid"]; ok {
		if err := checkUID(string(bytes.Trim(raw, `"`)), uid); err != nil {
			return err
		}
		delete(obj, "uid")
		if body, err = json.Marshal(obj); err != nil {
			return httpapi.BadRequest("요청 형식(JSON)이 올바르지 않습니다.")
		}
	}
	return httpapi.DecodeJSONBytes(body, v)
}

// checkUID accepts an absent uid or the session's.
func checkUID(v string, uid int64) error {
	if v == "" || v == "null" {
		return nil
	}
	if v != strconv.FormatInt(uid, 10) {
		return errNotSessionUID
	}
	return nil
}

func decodeInto[T any](r *http.Request, uid int64, v *T) error {
	return decode(r, uid, v)
}

func intQuery(r *http.Request, name string, def, lo, hi int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, httpapi.BadRequest("항목(%s)은 %d부터 %d 사이의 정수여야 합니다.", name, lo, hi)
	}
	return n, nil
}

func channelOf(r *http.Request) (string, error) {
	// Any case, as the edge reads it (contract.Enrich).
	c := strings.ToUpper(r.Header.Get(contract.HeaderChannel))
	switch c {
	case "", "AO", "AC", "AA", "AW", "IA", "IW":
		return c, nil
	}
	return "", httpapi.BadRequest("알 수 없는 채널입니다. (%q)", c)
}

func (s *Service) getWallet(w http.ResponseWriter, r *http.Request, uid int64) error {
	ch, err := channelOf(r)
	if err != nil {
		return err
	}
	si, err := s.SideInfo(r.Context(), uid, ch)
	if err != nil {
		return err
	}
	return writeJSON(w, struct {
		Header contract.Header `json:"header"`
		*SideInfo
	}{contract.Header{Code: 200}, si})
}

func (s *Service) getLedger(w http.ResponseWriter, r *http.Request, uid int64) error {
	before, err := intQuery(r, "before", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	limit, err := intQuery(r, "limit", 50, 1, 500)
	if err != nil {
		return err
	}
	l, err := s.Ledger(r.Context(), uid, before, int(limit))
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "list": nonNil(l)})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (s *Service) postJoinBonus(w http.ResponseWriter, r *http.Request, uid int64) error {
	wal, err := s.ClaimJoinBonus(r.Context(), uid)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "wallet": wal})
}

func (s *Service) getAutoPayment(w http.ResponseWriter, r *http.Request, uid int64) error {
	a, err := s.GetAutoPayment(r.Context(), uid)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "auto_payment_info": a})
}

func (s *Service) putAutoPayment(w http.ResponseWriter, r *http.Request, uid int64) error {
	// is_use is required (openapi.yaml): {} used to read as "off" and turned
	// a member's auto-payment off.
	var in struct {
		IsUse        *bool  `json:"is_use"`
		Type         string `json:"type"`
		Money        int64  `json:"money"`
		TriggerValue int64  `json:"trigger_value"`
	}
	if err := decodeInto(r, uid, &in); err != nil {
		return err
	}
	if in.IsUse == nil {
		return httpapi.BadRequest("필수 항목(is_use)이 없습니다.")
	}
	a := AutoPayment{IsUse: *in.IsUse, Type: in.Type, Money: in.Money, TriggerValue: in.TriggerValue}
	var err error
	if err := s.SetAutoPayment(r.Context(), uid, a); err != nil {
		return err
	}
	if a, err = s.GetAutoPayment(r.Context(), uid); err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "auto_payment_info": a})
}

func (s *Service) postCharge(w http.ResponseWriter, r *http.Request, uid int64) error {
	var req ChargeRequest
	if err := decodeInto(r, uid, &req); err != nil {
		return err
	}
	ch, err := channelOf(r)
	if err != nil {
		return err
	}
	req.Channel = ch
	// The store's address as the reader reached it: the edge names it in
	// X-Forwarded-Host (the CSRF guard reads the same two).
	req.Host, req.ForwardedHost = r.Host, r.Header.Get("X-Forwarded-Host")
	a, err := s.RequestCharge(r.Context(), uid, r.Header.Get(IdempotencyHeader), req)
	if err != nil {
		return err
	}
	return writeAnswer(w, a)
}

func (s *Service) postConfirm(w http.ResponseWriter, r *http.Request, uid int64) error {
	var req ConfirmRequest
	if err := decodeInto(r, uid, &req); err != nil {
		return err
	}
	a, err := s.ConfirmCharge(r.Context(), uid, r.Header.Get(IdempotencyHeader), req)
	if err != nil {
		return err
	}
	return writeAnswer(w, a)
}

func (s *Service) postCancel(w http.ResponseWriter, r *http.Request, uid int64) error {
	// The body is optional: none (or {}) refunds what is left of the charge.
	var req CancelChargeRequest
	if r.ContentLength != 0 {
		if err := decodeInto(r, uid, &req); err != nil {
			return err
		}
	}
	a, err := s.CancelCharge(r.Context(), uid, r.Header.Get(IdempotencyHeader), r.PathValue("orderId"), req)
	if err != nil {
		return err
	}
	return writeAnswer(w, a)
}

func (s *Service) getCharges(w http.ResponseWriter, r *http.Request, uid int64) error {
	limit, err := intQuery(r, "limit", 50, 1, 500)
	if err != nil {
		return err
	}
	l, err := s.Charges(r.Context(), uid, int(limit))
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "list": nonNil(l)})
}

func (s *Service) getCharge(w http.ResponseWriter, r *http.Request, uid int64) error {
	c, err := s.GetCharge(r.Context(), uid, r.PathValue("orderId"))
	if err != nil {
		return err
	}
	return writeJSON(w, c)
}

// errWebhookLimited answers a client address that posts webhooks faster than
// WebhookPerMinute.
var errWebhookLimited = httpapi.Errorf(http.StatusTooManyRequests, "요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.")

func (s *Service) postWebhook(w http.ResponseWriter, r *http.Request, _ int64) error {
	// Per client address, as the login limit (writer/auth): the route has no
	// session to count by, and realip has already put the client behind our
	// proxies into RemoteAddr.
	if !s.webhooks.Allow("ip:"+realip.RemoteHost(r), s.now()) {
		return errWebhookLimited
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return httpapi.ErrTooLarge
	}
	applied, err := s.Webhook(r.Context(), body)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "applied": applied})
}

func (s *Service) postPurchase(w http.ResponseWriter, r *http.Request, uid int64) error {
	var req PurchaseRequest
	if err := decodeInto(r, uid, &req); err != nil {
		return err
	}
	ch, err := channelOf(r)
	if err != nil {
		return err
	}
	req.Channel = ch
	a, err := s.Purchase(r.Context(), uid, r.Header.Get(IdempotencyHeader), req)
	if err != nil {
		return err
	}
	return writeAnswer(w, a)
}

func (s *Service) getPurchases(w http.ResponseWriter, r *http.Request, uid int64) error {
	var rental bool
	switch r.URL.Query().Get("type") {
	case "", "buy":
	case "rental":
		rental = true
	default:
		return httpapi.BadRequest("조회 종류(type)는 buy 또는 rental이어야 합니다.")
	}
	before, err := intQuery(r, "before", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	limit, err := intQuery(r, "limit", 50, 1, 500)
	if err != nil {
		return err
	}
	l, err := s.History(r.Context(), uid, rental, before, int(limit))
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "list": nonNil(l)})
}

func (s *Service) getStatus(w http.ResponseWriter, r *http.Request, uid int64) error {
	st, err := s.Status(r.Context(), uid, r.URL.Query().Get("pid"))
	if err != nil {
		return err
	}
	return writeJSON(w, st)
}

// postDownloadAuth accepts the seed's payload form-encoded or as JSON: pid, vol
// (or no), and an optional uid that must be the session's.
func (s *Service) postDownloadAuth(w http.ResponseWriter, r *http.Request, uid int64) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return httpapi.ErrTooLarge
	}
	vals := url.Values{}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		if err := httpapi.CheckJSON(body); err != nil {
			return err
		}
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if err := d.Decode(&m); err != nil || m == nil || d.More() {
			return httpapi.BadRequest("요청 형식(JSON)이 올바르지 않습니다.")
		}
		for k, v := range m {
			if r.URL.Query().Has(k) {
				return httpapi.BadRequest("같은 항목(%s)이 두 번 이상 있습니다.", k)
			}
			switch x := v.(type) {
			case string:
				vals.Set(k, x)
			case json.Number:
				vals.Set(k, x.String())
			default:
				return httpapi.BadRequest("항목(%s)의 형식이 올바르지 않습니다.", k)
			}
		}
	case "application/x-www-form-urlencoded", "":
		vals, err = url.ParseQuery(string(body))
		if err != nil {
			return httpapi.BadRequest("요청 형식(form)이 올바르지 않습니다.")
		}
		// uid=<own>&uid=<other> is refused, not read as its first value.
		if err := httpapi.CheckForm(vals, r.URL.Query()); err != nil {
			return err
		}
	default:
		return httpapi.Errorf(http.StatusUnsupportedMediaType, "지원하지 않는 요청 형식입니다.")
	}
	if err := checkUID(vals.Get("uid"), uid); err != nil {
		return err
	}
	vs := vals.Get("vol")
	if vs == "" {
		vs = vals.Get("no")
	}
	vol, err := strconv.Atoi(vs)
	if err != nil || vol <= 0 || vol > MaxVolNo {
		return httpapi.BadRequest("회차 번호(vol)는 1부터 %d까지의 정수여야 합니다.", MaxVolNo)
	}
	ch, err := channelOf(r)
	if err != nil {
		return err
	}
	a, err := s.Authorize(r.Context(), uid, vals.Get("pid"), vol, ch)
	if err != nil {
		return err
	}
	return writeJSON(w, a)
}

func (s *Service) getCoupons(w http.ResponseWriter, r *http.Request, uid int64) error {
	ci, err := s.Coupons(r.Context(), uid, r.URL.Query().Get("pid"))
	if err != nil {
		return err
	}
	return writeJSON(w, ci)
}

func (s *Service) postCouponUse(w http.ResponseWriter, r *http.Request, uid int64) error {
	var u CouponUse
	if err := decodeInto(r, uid, &u); err != nil {
		return err
	}
	ch, err := channelOf(r)
	if err != nil {
		return err
	}
	u.Channel = ch
	a, err := s.UseCoupon(r.Context(), uid, r.Header.Get(IdempotencyHeader), u)
	if err != nil {
		return err
	}
	return writeAnswer(w, a)
}

func (s *Service) getGifts(w http.ResponseWriter, r *http.Request, uid int64) error {
	g, err := s.GiftBox(r.Context(), uid)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "list": nonNil(g)})
}

func pathID(r *http.Request, name string) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || n <= 0 {
		return 0, httpapi.BadRequest("항목(%s)은 양의 정수여야 합니다.", name)
	}
	return n, nil
}

func (s *Service) postReceive(w http.ResponseWriter, r *http.Request, uid int64) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.ReceiveGift(r.Context(), uid, id); err != nil {
		return err
	}
	return writeJSON(w, contract.Envelope{Header: contract.Header{Code: 200}})
}

func (s *Service) getEvents(w http.ResponseWriter, r *http.Request, uid int64) error {
	kind := r.URL.Query().Get("kind")
	if kind != "" {
		ok := false
		for _, k := range couponEventKinds {
			ok = ok || k == kind
		}
		if !ok {
			return httpapi.BadRequest("알 수 없는 이벤트 종류입니다.")
		}
	}
	l, err := s.CouponEvents(r.Context(), uid, kind)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "list": nonNil(l)})
}

func (s *Service) postClaim(w http.ResponseWriter, r *http.Request, uid int64) error {
	eid, err := pathID(r, "eid")
	if err != nil {
		return err
	}
	res, err := s.ClaimEvent(r.Context(), uid, eid)
	if err != nil {
		return err
	}
	return writeJSON(w, res)
}

func (s *Service) postKindClaim(kind string) func(http.ResponseWriter, *http.Request, int64) error {
	return func(w http.ResponseWriter, r *http.Request, uid int64) error {
		var in struct {
			EID int64 `json:"eid"`
		}
		if err := decode(r, uid, &in); err != nil {
			return err
		}
		if in.EID <= 0 {
			return httpapi.BadRequest("이벤트 ID(eid)가 필요합니다.")
		}
		res, err := s.claimEvent(r.Context(), uid, in.EID, kind)
		if err != nil {
			return err
		}
		return writeJSON(w, res)
	}
}

func (s *Service) postJumpingPass(w http.ResponseWriter, r *http.Request, uid int64) error {
	var req JumpingPassRequest
	// Nothing is required: an empty body is an empty object.
	if r.ContentLength != 0 {
		if err := decodeInto(r, uid, &req); err != nil {
			return err
		}
	}
	ch, err := channelOf(r)
	if err != nil {
		return err
	}
	req.Channel = ch
	a, err := s.BuyJumpingPass(r.Context(), uid, r.Header.Get(IdempotencyHeader), req)
	if err != nil {
		return err
	}
	return writeAnswer(w, a)
}
