// Package admin is the writer's catalog admin API under /admin/api/v1/,
// authenticated by a bearer token that gives the admin role. Every change is
// written with its outbox rows in one transaction, so it reaches the edges
// through the relay.
package admin

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/writer/catalog"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
)

// Prefix of every admin route.
const Prefix = "/admin/api/v1/"

// API serves the admin routes.
type API struct {
	pool  *pgxpool.Pool
	token string
	now   func() time.Time
	log   *slog.Logger
	// Changed is called after each committed change (wakes the local relay).
	Changed func()
	// Coupons grants members coupons (nil: the grant route answers 503).
	Coupons Coupons
	// Docs rebuilds catalog documents as the relay does, and MaxDoc is the
	// largest one NATS accepts (natsutil.CatalogValueLimit, read at
	// start-up): a change whose document would be larger is refused to the
	// admin (422) and rolled back, never accepted and then dropped by the
	// relay. Nil Docs or MaxDoc 0 check nothing.
	Docs   outbox.Builder
	MaxDoc int
}

// New makes the admin API. token is the bearer token of the admin role.
func New(pool *pgxpool.Pool, token string, now func() time.Time, log *slog.Logger) *API {
	return &API{pool: pool, token: token, now: now, log: log, Changed: func() {}}
}

// Routes registers the admin routes on mux.
func (a *API) Routes(mux httpapi.Mux) {
	h := func(pattern string, f httpapi.HandlerFunc) {
		method, path, _ := strings.Cut(pattern, " ")
		var next http.Handler = httpapi.Wrap(a.log, f)
		// DELETE takes no body here: a sent one must be empty or {} (httpapi.NoBody).
		if method == http.MethodDelete {
			next = httpapi.NoBody(next)
		}
		mux.Handle(method+" "+Prefix+path, httpapi.Limit(32<<20, a.auth(next)))
	}
	h("POST works", a.createWork)
	h("GET works/{pid}", a.getWork)
	h("PATCH works/{pid}", a.patchWork)
	h("DELETE works/{pid}", a.hideWork)
	h("POST works/{pid}/volumes", a.putVolume)
	h("PUT works/{pid}/volumes/{no}", a.putVolume)
	h("DELETE works/{pid}/volumes/{no}", a.deleteVolume)
	h("POST authors", a.createAuthor)
	h("PATCH authors/{id}", a.renameAuthor)
	h("POST users/{uid}/coupons", a.grantCoupons)
	h("PUT users/{uid}/role", a.setRole)
	entity(h, a, "events", contract.KeyEvent, []string{"kind", "title", "startAt", "endAt"}, func(ctx context.Context, tx pgx.Tx, e *contract.Event, id int64) (int64, error) {
		e.EID = id
		return catalog.SaveEvent(ctx, tx, e)
	})
	entity(h, a, "awards", contract.KeyAward, []string{"title", "sections", "startAt", "endAt"}, func(ctx context.Context, tx pgx.Tx, e *contract.Award, id int64) (int64, error) {
		e.EID = id
		return catalog.SaveAward(ctx, tx, e)
	})
	entity(h, a, "faq", contract.KeyFAQ, []string{"cid", "question", "answer"}, func(ctx context.Context, tx pgx.Tx, e *contract.FAQ, id int64) (int64, error) {
		e.ID = id
		return catalog.SaveFAQ(ctx, tx, e)
	})
	entity(h, a, "notices", contract.KeyNotice, []string{"title"}, func(ctx context.Context, tx pgx.Tx, e *contract.Notice, id int64) (int64, error) {
		e.ID = id
		return catalog.SaveNotice(ctx, tx, e, a.now())
	})
	entity(h, a, "banners", contract.KeyBanner, []string{"place", "title"}, func(ctx context.Context, tx pgx.Tx, e *contract.Banner, id int64) (int64, error) {
		e.ID = id
		return catalog.SaveBanner(ctx, tx, e)
	})
	entity(h, a, "keywords", contract.KeyKeyword, []string{"name"}, func(ctx context.Context, tx pgx.Tx, e *contract.Keyword, id int64) (int64, error) {
		e.ID = id
		return catalog.SaveKeyword(ctx, tx, e)
	})
	site(h, a, "quicklinks", contract.KeyQuickLinks, func() *contract.QuickLinks { return &contract.QuickLinks{} })
	site(h, a, "jumpingpass", contract.KeyJumpPass, func() *contract.JumpingPass { return &contract.JumpingPass{} })
	site(h, a, "siteconfig", contract.KeySiteConfig, func() *contract.SiteConfig { return &contract.SiteConfig{} })
}

// Auth puts next behind the admin token, for admin routes other packages
// serve under Prefix (writer/media).
func (a *API) Auth(next http.Handler) http.Handler { return a.auth(next) }

func (a *API) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || a.token == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(a.token)) != 1 {
			httpapi.WriteError(w, r, a.log, httpapi.Errorf(http.StatusUnauthorized, "admin token required"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tx runs f in a transaction and reports the change after commit: Changed
// wakes this node's relay, and the notification wakes every other node's, so
// a catalog change goes out at once even when this node cannot publish (its
// NATS link is down). Admin changes are rare enough for NOTIFY's serialised
// commits to cost nothing.
func (a *API) tx(ctx context.Context, f func(pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if err := f(tx); err != nil {
			return err
		}
		if err := outbox.CheckDocs(ctx, tx, a.Docs, a.MaxDoc); err != nil {
			return err
		}
		return outbox.Notify(ctx, tx)
	})
	if err != nil {
		return mapErr(err)
	}
	a.Changed()
	return nil
}

func mapErr(err error) error {
	var ve *catalog.ValidationError
	var he *httpapi.Error
	var tl *outbox.TooLargeError
	switch {
	case errors.As(err, &he):
		return he
	case errors.As(err, &tl):
		return httpapi.Errorf(http.StatusUnprocessableEntity,
			"변경 후 문서(%s)가 %d바이트로, 독자에게 전달할 수 있는 최대 크기 %d바이트를 넘어 저장하지 않았습니다. 소개 글이나 공지를 줄여 다시 시도해 주세요.",
			tl.Key, tl.Size, tl.Max)
	case errors.As(err, &ve):
		return httpapi.BadRequest("%s", ve.Msg)
	case errors.Is(err, catalog.ErrNotFound):
		return httpapi.ErrNotFound
	}
	return err
}

type created struct {
	httpapi.Header200
	PID string `json:"pid,omitempty"`
	ID  int64  `json:"id,omitempty"`
}

func (a *API) createWork(w http.ResponseWriter, r *http.Request) error {
	var p contract.Product
	if err := httpapi.DecodeJSONRequired(r, &p, "section", "title"); err != nil {
		return err
	}
	err := a.tx(r.Context(), func(tx pgx.Tx) error {
		if p.PID == "" {
			pid, err := catalog.NewPID(r.Context(), tx)
			if err != nil {
				return err
			}
			p.PID = pid
		} else if _, err := catalog.LoadProduct(r.Context(), tx, p.PID, false); err == nil {
			return httpapi.Errorf(http.StatusConflict, "work %s exists", p.PID)
		}
		if err := catalog.Normalize(&p, a.now().UTC()); err != nil {
			return err
		}
		return catalog.SaveProducts(r.Context(), tx, []contract.Product{p}, true)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, created{Header200: httpapi.H200(), PID: p.PID})
}

func (a *API) getWork(w http.ResponseWriter, r *http.Request) error {
	p, err := catalog.LoadProduct(r.Context(), a.pool, r.PathValue("pid"), false)
	if err != nil {
		return mapErr(err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Product *contract.Product `json:"product"`
	}{httpapi.H200(), p})
}

// editWork loads a work locked, lets edit change it, validates and saves it.
func (a *API) editWork(ctx context.Context, pid string, edit func(p *contract.Product) error) (*contract.Product, error) {
	var out *contract.Product
	err := a.tx(ctx, func(tx pgx.Tx) error {
		p, err := catalog.LoadProduct(ctx, tx, pid, true)
		if err != nil {
			return err
		}
		if err := edit(p); err != nil {
			return err
		}
		if p.PID != pid {
			return httpapi.BadRequest("pid cannot change")
		}
		if err := catalog.Normalize(p, a.now().UTC()); err != nil {
			return err
		}
		out = p
		return catalog.SaveProducts(ctx, tx, []contract.Product{*p}, true)
	})
	return out, err
}

// patchWork merges the given top-level fields into the work: {"title":"..."}
// renames it; "volumes", when present, replaces the whole volume list.
func (a *API) patchWork(w http.ResponseWriter, r *http.Request) error {
	var raw json.RawMessage
	if err := httpapi.DecodeJSON(r, &raw); err != nil {
		return err
	}
	if len(raw) == 0 || raw[0] != '{' {
		return httpapi.BadRequest("body must be a JSON object")
	}
	p, err := a.editWork(r.Context(), r.PathValue("pid"), func(p *contract.Product) error {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(p); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return httpapi.BadRequest("field %s has the wrong type", te.Field)
			}
			return httpapi.BadRequest("%s", strings.TrimPrefix(err.Error(), "json: "))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, created{Header200: httpapi.H200(), PID: p.PID})
}

// hideWork hides a work: it stays in the bucket flagged hidden so every edge drops it.
func (a *API) hideWork(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.editWork(r.Context(), r.PathValue("pid"), func(p *contract.Product) error {
		p.Hidden = true
		return nil
	}); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// putVolume adds or replaces one volume; POST without a number appends the next.
func (a *API) putVolume(w http.ResponseWriter, r *http.Request) error {
	var v contract.Volume
	if err := httpapi.DecodeJSON(r, &v); err != nil {
		return err
	}
	if s := r.PathValue("no"); s != "" {
		no, err := strconv.Atoi(s)
		if err != nil || no <= 0 {
			return httpapi.BadRequest("volume number must be a positive integer")
		}
		if v.No != 0 && v.No != no {
			return httpapi.BadRequest("volume number in body and path differ")
		}
		v.No = no
	}
	status := http.StatusOK
	_, err := a.editWork(r.Context(), r.PathValue("pid"), func(p *contract.Product) error {
		if v.No == 0 {
			v.No = 1
			for _, x := range p.Volumes {
				v.No = max(v.No, x.No+1)
			}
		}
		i := slices.IndexFunc(p.Volumes, func(x contract.Volume) bool { return x.No == v.No })
		if i < 0 {
			status = http.StatusCreated
			p.Volumes = append(p.Volumes, v)
			slices.SortFunc(p.Volumes, func(x, y contract.Volume) int { return x.No - y.No })
		} else {
			p.Volumes[i] = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, status, struct {
		httpapi.Header200
		No int `json:"no"`
	}{httpapi.H200(), v.No})
}

func (a *API) deleteVolume(w http.ResponseWriter, r *http.Request) error {
	no, err := strconv.Atoi(r.PathValue("no"))
	if err != nil {
		return httpapi.BadRequest("volume number must be an integer")
	}
	if _, err := a.editWork(r.Context(), r.PathValue("pid"), func(p *contract.Product) error {
		i := slices.IndexFunc(p.Volumes, func(x contract.Volume) bool { return x.No == no })
		if i < 0 {
			return httpapi.ErrNotFound
		}
		p.Volumes = slices.Delete(p.Volumes, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

func (a *API) createAuthor(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name string `json:"name"`
	}
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	body.Name = strings.TrimSpace(body.Name)
	if body.Name == "" || len([]rune(body.Name)) > 100 {
		return httpapi.BadRequest("name must be 1-100 characters")
	}
	var id int64
	if err := a.pool.QueryRow(r.Context(), `INSERT INTO authors (name) VALUES ($1) RETURNING id`, body.Name).Scan(&id); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, created{Header200: httpapi.H200(), ID: id})
}

func (a *API) renameAuthor(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return httpapi.BadRequest("author id must be an integer")
	}
	var body struct {
		Name string `json:"name"`
	}
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	body.Name = strings.TrimSpace(body.Name)
	if body.Name == "" || len([]rune(body.Name)) > 100 {
		return httpapi.BadRequest("name must be 1-100 characters")
	}
	err = a.tx(r.Context(), func(tx pgx.Tx) error {
		tag, err := tx.Exec(r.Context(), `UPDATE authors SET name = $1 WHERE id = $2`, body.Name, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return httpapi.ErrNotFound
		}
		var pids []string
		rows, err := tx.Query(r.Context(), `SELECT pid FROM work_authors WHERE author_id = $1`, id)
		if err != nil {
			return err
		}
		if pids, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		return catalog.TouchProducts(r.Context(), tx, pids...)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// entity registers POST <name>, PUT <name>/{id} and DELETE <name>/{id} for one
// kind of catalog document.
func entity[T any](h func(string, httpapi.HandlerFunc), a *API, name, prefix string, required []string,
	save func(ctx context.Context, tx pgx.Tx, doc *T, id int64) (int64, error)) {
	put := func(w http.ResponseWriter, r *http.Request) error {
		var id int64
		if s := r.PathValue("id"); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n <= 0 {
				return httpapi.BadRequest("id must be a positive integer")
			}
			id = n
		}
		var doc T
		// The fields openapi.yaml requires: absent, they were stored as
		// zero values (an award without sections).
		if err := httpapi.DecodeJSONRequired(r, &doc, required...); err != nil {
			return err
		}
		err := a.tx(r.Context(), func(tx pgx.Tx) error {
			n, err := save(r.Context(), tx, &doc, id)
			id = n
			return err
		})
		if err != nil {
			return err
		}
		status := http.StatusOK
		if r.Method == http.MethodPost {
			status = http.StatusCreated
		}
		return httpapi.JSON(w, status, created{Header200: httpapi.H200(), ID: id})
	}
	h("POST "+name, put)
	h("PUT "+name+"/{id}", put)
	h("DELETE "+name+"/{id}", func(w http.ResponseWriter, r *http.Request) error {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			return httpapi.BadRequest("id must be an integer")
		}
		if err := a.tx(r.Context(), func(tx pgx.Tx) error { return catalog.Delete(r.Context(), tx, prefix, id) }); err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, httpapi.OK)
	})
}

// site registers PUT <name> for a site-wide document.
func site[T any](h func(string, httpapi.HandlerFunc), a *API, name, k string, mk func() *T) {
	h("PUT "+name, func(w http.ResponseWriter, r *http.Request) error {
		doc := mk()
		if err := httpapi.DecodeJSON(r, doc); err != nil {
			return err
		}
		if err := a.tx(r.Context(), func(tx pgx.Tx) error { return catalog.SaveSiteDoc(r.Context(), tx, k, doc) }); err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, httpapi.OK)
	})
}
