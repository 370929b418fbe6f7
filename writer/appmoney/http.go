package appmoney

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"storefront/writer/httpapi"
	"storefront/writer/money"
)

// Routes of the stores.
const (
	GoogleReceiptPath      = "/home/api/v1/appmoney/google/receipts"
	GoogleNotificationPath = "/home/api/v1/appmoney/google/notifications"
	AppleReceiptPath       = "/home/api/v1/appmoney/apple/receipts"
	AppleNotificationPath  = "/home/api/v1/appmoney/apple/notifications"
)

// NotificationPaths are the routes the stores' servers call (no reader's
// request: no session, no reader enrichment).
var NotificationPaths = []string{GoogleNotificationPath, AppleNotificationPath}

// maxBody bounds bodies: a signed notification with its certificate chain is
// a few KiB.
const maxBody = 64 << 10

// Client errors.
var (
	errGoogleOff    = &httpapi.Error{Code: http.StatusServiceUnavailable, Msg: "지금은 Google Play 결제를 이용할 수 없습니다."}
	errAppleOff     = &httpapi.Error{Code: http.StatusServiceUnavailable, Msg: "지금은 App Store 결제를 이용할 수 없습니다."}
	errStoreDown    = &httpapi.Error{Code: http.StatusBadGateway, Msg: "스토어에서 구매를 확인하지 못했습니다. 잠시 후 다시 시도해 주세요."}
	errUnknownGoods = httpapi.BadRequest("판매하지 않는 상품입니다.")
	errOtherApp     = httpapi.BadRequest("이 앱의 구매가 아닙니다.")
	errNotification = &httpapi.Error{Code: http.StatusUnauthorized, Msg: "인증되지 않은 스토어 알림입니다."}
)

// Routes registers the receipt routes (session required) and the stores'
// notification routes (no session; authenticated by their own means).
//
//	POST /home/api/v1/appmoney/google/receipts       {packageName, productId, purchaseToken}  (Android app channels)
//	POST /home/api/v1/appmoney/apple/receipts        {transactionId}                            (iOS app channel)
//	POST /home/api/v1/appmoney/google/notifications   Pub/Sub push of an RTDN (Authorization: Bearer OIDC token)
//	POST /home/api/v1/appmoney/apple/notifications   {signedPayload}  App Store Server Notification v2
func (s *Service) Routes(mux httpapi.Mux, user func(*http.Request) (uid int64, ok bool)) {
	member := func(fn func(http.ResponseWriter, *http.Request, int64) error) http.Handler {
		return s.wrap(func(w http.ResponseWriter, r *http.Request) error {
			uid, ok := user(r)
			if !ok {
				return httpapi.ErrUnauthorized
			}
			return fn(w, r, uid)
		})
	}
	mux.Handle("POST "+GoogleReceiptPath, member(s.postGoogleReceipt))
	mux.Handle("POST "+AppleReceiptPath, member(s.postAppleReceipt))
	mux.Handle("POST "+GoogleNotificationPath, s.wrap(s.postGoogleNotification))
	mux.Handle("POST "+AppleNotificationPath, s.wrap(s.postAppleNotification))
}

// wrap bounds the body; errors become the envelope (httpapi.Wrap).
func (s *Service) wrap(fn httpapi.HandlerFunc) http.Handler {
	return httpapi.Wrap(s.log, func(w http.ResponseWriter, r *http.Request) error {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		return fn(w, r)
	})
}

// appChannel refuses a receipt from a channel that does not spend money.
func appChannel(r *http.Request, want string) error {
	ch, err := httpapi.Channel(r)
	if err != nil {
		return err
	}
	if money.MoneyFor(ch) != want {
		if want == money.Android {
			return httpapi.BadRequest("Google Play 구매는 안드로이드 앱에서만 충전할 수 있습니다. (X-Channel)")
		}
		return httpapi.BadRequest("App Store 구매는 iOS 앱에서만 충전할 수 있습니다. (X-Channel)")
	}
	return nil
}

func checkField(name, v string, max int) error {
	if v == "" || len(v) > max || !httpapi.CleanText(v) {
		return httpapi.BadRequest("항목(%s)의 형식이 올바르지 않습니다.", name)
	}
	return nil
}

// GoogleReceipt is what the Android app posts after a Play Billing purchase.
type GoogleReceipt struct {
	PackageName   string `json:"packageName"`
	ProductID     string `json:"productId"`
	PurchaseToken string `json:"purchaseToken"`
}

func (s *Service) postGoogleReceipt(w http.ResponseWriter, r *http.Request, uid int64) error {
	var in GoogleReceipt
	if err := httpapi.DecodeJSONRequired(r, &in, "packageName", "productId", "purchaseToken"); err != nil {
		return err
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{{"packageName", in.PackageName, 256}, {"productId", in.ProductID, 256}, {"purchaseToken", in.PurchaseToken, 2048}} {
		if err := checkField(f.name, f.v, f.max); err != nil {
			return err
		}
	}
	if err := appChannel(r, money.Android); err != nil {
		return err
	}
	if s.google == nil {
		return errGoogleOff
	}
	if in.PackageName != s.google.PackageName {
		return errOtherApp
	}
	amount, ok := s.cfg.Products[in.ProductID]
	if !ok {
		return errUnknownGoods
	}
	p, err := s.google.Product(r.Context(), in.ProductID, in.PurchaseToken)
	if err != nil {
		return s.googleErr(err, "get purchase")
	}
	switch {
	case p.PurchaseState == 2:
		return httpapi.Errorf(http.StatusConflict, "결제가 아직 끝나지 않았습니다. 결제가 완료되면 다시 시도해 주세요.")
	case p.PurchaseState != 0:
		return httpapi.BadRequest("취소된 구매입니다.")
	case p.OrderID == "" || (p.ProductID != "" && p.ProductID != in.ProductID):
		return &httpapi.Error{Code: http.StatusBadGateway, Msg: errStoreDown.Msg,
			Err: fmt.Errorf("google play answer for %s does not match: order %q product %q", in.ProductID, p.OrderID, p.ProductID)}
	case p.ObfuscatedExternalAccountID != "" && p.ObfuscatedExternalAccountID != strconv.FormatInt(uid, 10):
		// The app names the account at launchBillingFlow; a token copied
		// from another member's device is not this member's purchase.
		return httpapi.Errorf(http.StatusForbidden, "다른 계정에서 결제한 구매입니다.")
	}
	if p.Quantity > 1 {
		amount *= int64(p.Quantity)
	}
	rec, err := s.money.CreditStore(r.Context(), uid, money.StorePurchase{Store: money.StoreGoogle, TransactionID: p.OrderID,
		ProductID: in.ProductID, Money: money.Android, Amount: amount, Quantity: p.Quantity, PurchasedAt: p.PurchasedAt()})
	if err != nil {
		return err
	}
	// Consume after the credit committed: the money is ours to keep only once
	// it is credited, and a consume that fails leaves the receipt to be
	// posted again (a replay, which only retries the consume).
	if p.ConsumptionState == 0 {
		if err := s.consume(r.Context(), in.ProductID, in.PurchaseToken); err != nil {
			return &httpapi.Error{Code: http.StatusBadGateway,
				Msg: "충전되었지만 스토어에 구매 완료를 알리지 못했습니다. 잠시 후 다시 시도해 주세요.", Err: err}
		}
	}
	return httpapi.JSON(w, http.StatusOK, rec)
}

// consume consumes a purchase; a refusal because another copy of the
// receipt consumed it meanwhile is success.
func (s *Service) consume(ctx context.Context, productID, token string) error {
	err := s.google.Consume(ctx, productID, token)
	if err == nil {
		return nil
	}
	if p, gerr := s.google.Product(ctx, productID, token); gerr == nil && p.ConsumptionState == 1 {
		return nil
	}
	return err
}

// googleErr maps an API failure: a token Google does not know is the
// client's fault, anything else is ours or Google's (502).
func (s *Service) googleErr(err error, what string) error {
	var ge *GoogleError
	if errors.As(err, &ge) && (ge.HTTPStatus == http.StatusBadRequest || ge.HTTPStatus == http.StatusNotFound || ge.HTTPStatus == http.StatusGone) {
		return &httpapi.Error{Code: http.StatusBadRequest, Msg: "스토어에서 확인할 수 없는 구매입니다.", Err: err}
	}
	return &httpapi.Error{Code: errStoreDown.Code, Msg: errStoreDown.Msg, Err: fmt.Errorf("google play %s: %w", what, err)}
}

// AppleReceipt is what the iOS app posts after a StoreKit 2 purchase.
type AppleReceipt struct {
	TransactionID string `json:"transactionId"`
}

func (s *Service) postAppleReceipt(w http.ResponseWriter, r *http.Request, uid int64) error {
	var in AppleReceipt
	if err := httpapi.DecodeJSONRequired(r, &in, "transactionId"); err != nil {
		return err
	}
	if _, err := strconv.ParseUint(in.TransactionID, 10, 64); err != nil || len(in.TransactionID) > 32 {
		return httpapi.BadRequest("항목(transactionId)의 형식이 올바르지 않습니다.")
	}
	if err := appChannel(r, money.IOS); err != nil {
		return err
	}
	if s.apple == nil {
		return errAppleOff
	}
	jws, err := s.apple.Transaction(r.Context(), in.TransactionID)
	var ae *AppStoreError
	switch {
	case errors.As(err, &ae) && (ae.HTTPStatus == http.StatusNotFound || ae.HTTPStatus == http.StatusBadRequest):
		return &httpapi.Error{Code: http.StatusBadRequest, Msg: "스토어에서 확인할 수 없는 구매입니다.", Err: err}
	case err != nil:
		return &httpapi.Error{Code: errStoreDown.Code, Msg: errStoreDown.Msg, Err: err}
	}
	t, err := s.verifier.VerifyTransaction(jws)
	if err != nil {
		if errors.Is(err, errJWS) {
			// The answer of the API itself does not verify: not the reader's doing.
			return &httpapi.Error{Code: errStoreDown.Code, Msg: errStoreDown.Msg, Err: err}
		}
		return appleDataErr(err)
	}
	if t.TransactionID != in.TransactionID {
		return &httpapi.Error{Code: errStoreDown.Code, Msg: errStoreDown.Msg,
			Err: fmt.Errorf("app store answered transaction %s for %s", t.TransactionID, in.TransactionID)}
	}
	amount, ok := s.cfg.Products[t.ProductID]
	switch {
	case !ok:
		return errUnknownGoods
	case t.Type != "Consumable":
		return httpapi.BadRequest("충전 상품의 구매가 아닙니다.")
	case t.RevocationDate != 0:
		return httpapi.BadRequest("환불된 구매입니다.")
	}
	if t.Quantity > 1 {
		amount *= int64(t.Quantity)
	}
	rec, err := s.money.CreditStore(r.Context(), uid, money.StorePurchase{Store: money.StoreApple, TransactionID: t.TransactionID,
		ProductID: t.ProductID, Money: money.IOS, Amount: amount, Quantity: t.Quantity, PurchasedAt: time.UnixMilli(t.PurchaseDate).UTC()})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, rec)
}

func appleDataErr(err error) error {
	switch {
	case errors.Is(err, errWrongBundle):
		return &httpapi.Error{Code: errOtherApp.Code, Msg: errOtherApp.Msg, Err: err}
	case errors.Is(err, errWrongEnv):
		return &httpapi.Error{Code: http.StatusBadRequest, Msg: "다른 환경(샌드박스/운영)의 구매입니다.", Err: err}
	}
	return &httpapi.Error{Code: http.StatusBadRequest, Msg: "App Store가 서명한 내용이 아닙니다.", Err: err}
}

// seen tells whether a notification was handled before.
func (s *Service) seen(ctx context.Context, store, id string) (bool, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM store_notifications WHERE store = $1 AND id = $2`, store, id).Scan(&n); err != nil {
		return false, fmt.Errorf("read store notification %s:%s: %w", store, id, err)
	}
	return n > 0, nil
}

// handled records a notification after its effect committed; the effect
// itself is idempotent, so a redelivery racing this insert changes nothing.
func (s *Service) handled(ctx context.Context, store, id, kind string) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO store_notifications (store, id, kind, received_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, store, id, kind, s.cfg.Now()); err != nil {
		return fmt.Errorf("record store notification %s:%s: %w", store, id, err)
	}
	return nil
}

func ack(w http.ResponseWriter) error { return httpapi.JSON(w, http.StatusOK, httpapi.OK) }

func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, httpapi.ErrTooLarge
		}
		return nil, fmt.Errorf("read notification: %w", err)
	}
	if err := httpapi.CheckJSON(b); err != nil {
		return nil, err
	}
	return b, nil
}

// postGoogleNotification takes a Pub/Sub push of a real-time developer
// notification. The push is authenticated (PushAuth: Google's OIDC token of
// the subscription, or the endpoint's token); the notification is then only
// a pointer: what is voided or canceled is read back from the Developer API.
func (s *Service) postGoogleNotification(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	var push PushMessage
	var n DeveloperNotification
	if err := json.Unmarshal(b, &push); err != nil || push.Message.MessageID == "" {
		return httpapi.BadRequest("알림 형식이 올바르지 않습니다.")
	}
	if err := json.Unmarshal(push.Message.Data, &n); err != nil {
		return httpapi.BadRequest("알림 형식이 올바르지 않습니다.")
	}
	// Malformed bodies are 400 whatever the settings (as every route); the
	// content is believed only once the push is authenticated.
	if s.google == nil {
		return errGoogleOff
	}
	if err := s.push.Check(r); err != nil {
		return &httpapi.Error{Code: errNotification.Code, Msg: errNotification.Msg, Err: err}
	}
	if n.PackageName != s.google.PackageName {
		return errOtherApp
	}
	ctx := r.Context()
	if done, err := s.seen(ctx, money.StoreGoogle, push.Message.MessageID); err != nil || done {
		if err != nil {
			return err
		}
		return ack(w)
	}
	kind := "other"
	switch {
	case n.VoidedPurchaseNotification != nil:
		kind = "voided"
		v := n.VoidedPurchaseNotification
		if err := s.googleVoided(ctx, v.OrderID, v.PurchaseToken); err != nil {
			return err
		}
	case n.OneTimeProductNotification != nil && n.OneTimeProductNotification.NotificationType == OneTimeProductCanceled:
		kind = "canceled"
		o := n.OneTimeProductNotification
		p, err := s.google.Product(ctx, o.SKU, o.PurchaseToken)
		if err != nil {
			return s.googleErr(err, "get canceled purchase")
		}
		if p.PurchaseState == 1 && p.OrderID != "" {
			if _, err := s.money.RevokeStore(ctx, money.StoreGoogle, p.OrderID, "canceled"); err != nil {
				return err
			}
		}
	}
	// Purchases (type 1) are credited when the app posts the receipt; test
	// notifications only need the acknowledgement.
	if err := s.handled(ctx, money.StoreGoogle, push.Message.MessageID, kind); err != nil {
		return err
	}
	return ack(w)
}

// googleVoided revokes a purchase the voided purchases list confirms.
func (s *Service) googleVoided(ctx context.Context, orderID, token string) error {
	var purchased time.Time
	err := s.pool.QueryRow(ctx, `SELECT purchased_at FROM store_purchases WHERE store = $1 AND transaction_id = $2`,
		money.StoreGoogle, orderID).Scan(&purchased)
	if err != nil {
		// Not credited here (or not ours): nothing to take back.
		return nil
	}
	// The list goes back 30 days at most; the purchase is the earliest a void can be.
	start := purchased.Add(-time.Minute)
	if oldest := s.cfg.Now().Add(-30*24*time.Hour + time.Minute); start.Before(oldest) {
		start = oldest
	}
	list, err := s.google.Voided(ctx, start)
	if err != nil {
		return s.googleErr(err, "list voided purchases")
	}
	// Every void of the order counts: a full one voids every unit, each
	// quantity-based partial refund is listed with the units it voided.
	units, found, seen := 0, false, map[string]bool{}
	for _, v := range list {
		if v.OrderID != orderID || v.PurchaseToken != token || seen[v.VoidedTimeMillis] {
			continue
		}
		seen[v.VoidedTimeMillis], found = true, true
		if v.VoidedQuantity <= 0 {
			units = 0
			break
		}
		units += v.VoidedQuantity
	}
	if !found {
		return httpapi.BadRequest("스토어에서 확인되지 않는 환불입니다.")
	}
	_, err = s.money.RevokeStoreUnits(ctx, money.StoreGoogle, orderID, "voided", units)
	return err
}

// appleTransaction verifies the signed transaction a notification carries.
func (s *Service) appleTransaction(n NotificationPayload) (TransactionPayload, error) {
	if n.Data == nil || n.Data.SignedTransactionInfo == "" {
		return TransactionPayload{}, httpapi.BadRequest("알림 형식이 올바르지 않습니다.")
	}
	t, err := s.verifier.VerifyTransaction(n.Data.SignedTransactionInfo)
	if err != nil {
		return t, appleDataErr(err)
	}
	return t, nil
}

// AppleNotification is the body of an App Store Server Notification v2.
type AppleNotification struct {
	SignedPayload string `json:"signedPayload"`
}

// postAppleNotification takes an App Store Server Notification v2. The
// payload and the transaction inside are signed by Apple (JWS chained to
// the pinned root), so they are trusted once verified.
func (s *Service) postAppleNotification(w http.ResponseWriter, r *http.Request) error {
	var in AppleNotification
	if err := httpapi.DecodeJSONRequired(r, &in, "signedPayload"); err != nil {
		return err
	}
	if s.apple == nil {
		return errAppleOff
	}
	n, err := s.verifier.VerifyNotification(in.SignedPayload)
	if err != nil {
		return appleDataErr(err)
	}
	if n.NotificationUUID == "" {
		return httpapi.BadRequest("알림 형식이 올바르지 않습니다.")
	}
	ctx := r.Context()
	if done, err := s.seen(ctx, money.StoreApple, n.NotificationUUID); err != nil || done {
		if err != nil {
			return err
		}
		return ack(w)
	}
	switch n.NotificationType {
	case "REFUND", "REVOKE":
		t, err := s.appleTransaction(n)
		if err != nil {
			return err
		}
		if t.RevocationDate == 0 {
			return httpapi.BadRequest("환불되지 않은 구매입니다.")
		}
		if _, err := s.money.RevokeStore(ctx, money.StoreApple, t.TransactionID, "refund"); err != nil {
			return err
		}
	case "REFUND_REVERSED":
		// Apple cancelled a refund it granted: the transaction it signs no
		// longer carries the revocation, and the money comes back.
		t, err := s.appleTransaction(n)
		if err != nil {
			return err
		}
		if t.RevocationDate != 0 {
			return httpapi.BadRequest("환불이 취소되지 않은 구매입니다.")
		}
		if _, err := s.money.ReinstateStore(ctx, money.StoreApple, t.TransactionID, "refund_reversed"); err != nil {
			return err
		}
	}
	if err := s.handled(ctx, money.StoreApple, n.NotificationUUID, n.NotificationType); err != nil {
		return err
	}
	return ack(w)
}
