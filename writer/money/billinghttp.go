package money

import (
	"net/http"
	"strconv"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// The card and notice routes (issue 32), registered by Routes:
//
//	POST   /home/api/v1/wallet/cards/registration  {successUrl?, failUrl?} -> {clientKey, customerKey, successUrl, failUrl, windowUrl (sandbox)}
//	POST   /home/api/v1/wallet/cards               {customerKey, authKey} from the window's success redirect -> card
//	GET    /home/api/v1/wallet/cards               the member's cards (company, masked number), newest first
//	DELETE /home/api/v1/wallet/cards/{id}          forget a card (no body)
//	GET    /home/api/v1/wallet/notices?limit=      top-up receipts and pauses, newest first

func (s *Service) billingRoutes(h, nb func(pattern string, fn func(w http.ResponseWriter, r *http.Request, uid int64) error)) {
	h("POST /home/api/v1/wallet/cards/registration", s.postCardRegistration)
	h("POST /home/api/v1/wallet/cards", s.postCard)
	h("GET /home/api/v1/wallet/cards", s.getCards)
	nb("DELETE /home/api/v1/wallet/cards/{id}", s.deleteCard)
	h("GET /home/api/v1/wallet/notices", s.getNotices)
}

func (s *Service) postCardRegistration(w http.ResponseWriter, r *http.Request, uid int64) error {
	var req CardRegistrationRequest
	if err := decodeInto(r, uid, &req); err != nil {
		return err
	}
	req.Host, req.ForwardedHost = r.Host, r.Header.Get("X-Forwarded-Host")
	out, err := s.StartCardRegistration(r.Context(), uid, req)
	if err != nil {
		return err
	}
	return writeJSON(w, out)
}

func (s *Service) postCard(w http.ResponseWriter, r *http.Request, uid int64) error {
	var req RegisterCardRequest
	if err := decodeInto(r, uid, &req); err != nil {
		return err
	}
	c, err := s.RegisterCard(r.Context(), uid, req)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "card": c})
}

func (s *Service) getCards(w http.ResponseWriter, r *http.Request, uid int64) error {
	l, err := s.Cards(r.Context(), uid)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "cards": l})
}

func (s *Service) deleteCard(w http.ResponseWriter, r *http.Request, uid int64) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return httpapi.BadRequest("카드 번호(id)는 양의 정수여야 합니다.")
	}
	if err := s.RemoveCard(r.Context(), uid, id); err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}})
}

func (s *Service) getNotices(w http.ResponseWriter, r *http.Request, uid int64) error {
	limit, err := intQuery(r, "limit", 50, 1, 200)
	if err != nil {
		return err
	}
	l, err := s.Notices(r.Context(), uid, int(limit))
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]any{"header": contract.Header{Code: 200}, "notices": l})
}
