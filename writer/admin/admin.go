// Package admin is the writer's catalog admin API under /admin/api/v1/.
// Every route stands behind writer/staff's guard (a staff session holding the
// route's permission, or the machine token within its scope), and every
// change is written with its outbox rows and its audit row in one
// transaction, so it reaches the edges through the relay with its author.
package admin

import (
	"bytes"
	"context"
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
	"storefront/writer/settlement"
	"storefront/writer/staff"
)

// Prefix of every admin route.
const Prefix = "/admin/api/v1/"

// API serves the admin routes.
type API struct {
	pool  *pgxpool.Pool
	staff *staff.Service
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

// New makes the admin API; st guards its routes.
func New(pool *pgxpool.Pool, st *staff.Service, now func() time.Time, log *slog.Logger) *API {
	return &API{pool: pool, staff: st, now: now, log: log, Changed: func() {}}
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
		perms := []staff.Permission{staff.PermCatalog}
		switch {
		case path == "users/{uid}/role":
			perms = []staff.Permission{staff.PermMemberRole}
		case portal[method+" "+path]:
			// The partner portal reuses these with a provider's scope:
			// editWork and getWork check the work is its own (staff.OwnWork).
			perms = append(perms, staff.PermOwnWorks)
		}
		mux.Handle(method+" "+Prefix+path, httpapi.Limit(32<<20, a.staff.RequireAny(perms, next)))
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

// portal are the catalog routes a provider may call for its own works (the
// partner portal): read a work, add an episode, change one (its title,
// release time, prices and free setting within its contract's limits). The
// rest (a work's other fields, hiding a work, deleting an episode, authors,
// events...) stay the content team's.
var portal = map[string]bool{
	"GET works/{pid}":              true,
	"POST works/{pid}/volumes":     true,
	"PUT works/{pid}/volumes/{no}": true,
}

// PortalAuth puts next behind the catalog permission or a provider's own
// works (writer/media's uploads and jobs: each handler checks the work, the
// upload or the job against a provider's scope).
func (a *API) PortalAuth(next http.Handler) http.Handler {
	return a.staff.RequireAny([]staff.Permission{staff.PermCatalog, staff.PermOwnWorks}, next)
}

// ModerationAuth puts next behind the moderation permission (moderators and
// content managers), for the episode comments' queue (writer/member).
func (a *API) ModerationAuth(next http.Handler) http.Handler {
	return a.staff.Require(staff.PermModeration, next)
}

// tx runs f in a transaction and reports the change after commit: Changed
// wakes this node's relay, and the notification wakes every other node's, so
// a catalog change goes out at once even when this node cannot publish (its
// NATS link is down). Admin changes are rare enough for NOTIFY's serialised
// commits to cost nothing.
//
// The audit row goes in the same transaction: e describes the change (f may
// fill in its before and after once it knows them); its outbox rows carry
// the row's id.
func (a *API) tx(ctx context.Context, e *staff.Entry, f func(pgx.Tx) error) error {
	err := staff.AuditedTx(ctx, a.pool, func(tx pgx.Tx, write func(staff.Entry) error) error {
		if err := f(tx); err != nil {
			return err
		}
		if err := write(*e); err != nil {
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
	e := entry(r, "work:")
	err := a.tx(r.Context(), e, func(tx pgx.Tx) error {
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
		e.Target += p.PID
		e.After = p
		return catalog.SaveProducts(r.Context(), tx, []contract.Product{p}, true)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, created{Header200: httpapi.H200(), PID: p.PID})
}

func (a *API) getWork(w http.ResponseWriter, r *http.Request) error {
	if err := staff.OwnWork(r.Context(), a.pool, r.PathValue("pid")); err != nil {
		return err
	}
	p, err := catalog.LoadProduct(r.Context(), a.pool, r.PathValue("pid"), false)
	if err != nil {
		return mapErr(err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Product *contract.Product `json:"product"`
	}{httpapi.H200(), p})
}

// editWork loads a work locked, lets edit change it, validates and saves it;
// the audit row holds the fields that changed, before and after.
func (a *API) editWork(r *http.Request, pid string, edit func(tx pgx.Tx, p *contract.Product) error) (*contract.Product, error) {
	ctx := r.Context()
	var out *contract.Product
	e := entry(r, "work:"+pid)
	err := a.tx(ctx, e, func(tx pgx.Tx) error {
		// A provider is refused another's work before anything of it is
		// read (an unknown work too: the same 403); the check holds the
		// work's row to commit.
		if err := staff.OwnWork(ctx, tx, pid); err != nil {
			return err
		}
		p, err := catalog.LoadProduct(ctx, tx, pid, true)
		if err != nil {
			return err
		}
		before, err := json.Marshal(p)
		if err != nil {
			return err
		}
		if err := edit(tx, p); err != nil {
			return err
		}
		if p.PID != pid {
			return httpapi.BadRequest("pid cannot change")
		}
		if err := catalog.Normalize(p, a.now().UTC()); err != nil {
			return err
		}
		out = p
		after, err := json.Marshal(p)
		if err != nil {
			return err
		}
		if e.Before, e.After, err = diff(before, after); err != nil {
			return err
		}
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
	p, err := a.editWork(r, r.PathValue("pid"), func(tx pgx.Tx, p *contract.Product) error {
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
	if _, err := a.editWork(r, r.PathValue("pid"), func(tx pgx.Tx, p *contract.Product) error {
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
	_, err := a.editWork(r, r.PathValue("pid"), func(tx pgx.Tx, p *contract.Product) error {
		if v.No == 0 {
			v.No = 1
			for _, x := range p.Volumes {
				v.No = max(v.No, x.No+1)
			}
		}
		i := slices.IndexFunc(p.Volumes, func(x contract.Volume) bool { return x.No == v.No })
		provider, isProvider := staff.Provider(r.Context())
		if isProvider {
			// An episode's pages come only through the media pipeline
			// (POST media/jobs): a provider's change keeps them as they are.
			v.Pages, v.ContentBase, v.ContentVer, v.ContentRetired = 0, "", "", nil
			if i >= 0 {
				old := p.Volumes[i]
				v.Pages, v.ContentBase, v.ContentVer, v.ContentRetired = old.Pages, old.ContentBase, old.ContentVer, old.ContentRetired
			}
		}
		if i < 0 {
			status = http.StatusCreated
			p.Volumes = append(p.Volumes, v)
			slices.SortFunc(p.Volumes, func(x, y contract.Volume) int { return x.No - y.No })
		} else {
			p.Volumes[i] = v
		}
		if isProvider {
			limits, err := settlement.LimitsOf(r.Context(), tx, provider)
			if err != nil {
				return err
			}
			return limits.Check(p.Volumes, v.No)
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
	if _, err := a.editWork(r, r.PathValue("pid"), func(tx pgx.Tx, p *contract.Product) error {
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
	e := entry(r, "author:")
	if err := a.tx(r.Context(), e, func(tx pgx.Tx) error {
		if err := tx.QueryRow(r.Context(), `INSERT INTO authors (name) VALUES ($1) RETURNING id`, body.Name).Scan(&id); err != nil {
			return err
		}
		e.Target += strconv.FormatInt(id, 10)
		e.After = body
		return nil
	}); err != nil {
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
	e := entry(r, "author:"+strconv.FormatInt(id, 10))
	e.After = body
	err = a.tx(r.Context(), e, func(tx pgx.Tx) error {
		var old string
		if err := tx.QueryRow(r.Context(), `SELECT name FROM authors WHERE id = $1 FOR UPDATE`, id).Scan(&old); err == nil {
			e.Before = map[string]string{"name": old}
		}
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
		e := entry(r, name+":")
		e.After = doc
		err := a.tx(r.Context(), e, func(tx pgx.Tx) error {
			if id != 0 {
				e.Before = a.currentDoc(r.Context(), tx, prefix, id)
			}
			n, err := save(r.Context(), tx, &doc, id)
			id = n
			e.Target += strconv.FormatInt(id, 10)
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
		e := entry(r, name+":"+strconv.FormatInt(id, 10))
		if err := a.tx(r.Context(), e, func(tx pgx.Tx) error {
			e.Before = a.currentDoc(r.Context(), tx, prefix, id)
			return catalog.Delete(r.Context(), tx, prefix, id)
		}); err != nil {
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
		e := entry(r, "site:"+name)
		e.After = doc
		if err := a.tx(r.Context(), e, func(tx pgx.Tx) error {
			e.Before = a.currentDoc(r.Context(), tx, k, 0)
			return catalog.SaveSiteDoc(r.Context(), tx, k, doc)
		}); err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, httpapi.OK)
	})
}

// entry starts the audit description of r: the action is the route
// ("PATCH works/{pid}"), the target starts with target (completed once the
// change knows its id).
func entry(r *http.Request, target string) *staff.Entry {
	_, path, _ := strings.Cut(r.Pattern, " ")
	return &staff.Entry{Action: r.Method + " " + strings.TrimPrefix(path, Prefix), Target: target}
}

// currentDoc is the document a key holds before a change, as readers see it
// (built as the relay builds it), for the audit row's before; nil when there
// is none or Docs is not set.
func (a *API) currentDoc(ctx context.Context, tx pgx.Tx, prefix string, id int64) json.RawMessage {
	if a.Docs == nil {
		return nil
	}
	k := prefix
	if id != 0 {
		k += strconv.FormatInt(id, 10)
	}
	docs, err := a.Docs(ctx, tx, []string{k})
	if err != nil {
		return nil
	}
	return docs[k]
}

// diff keeps the top-level fields of two JSON objects that differ; for
// "volumes", only the volumes (by number) added, changed or removed, so that
// the audit row of one episode's price in a work of thousands is small.
func diff(before, after []byte) (json.RawMessage, json.RawMessage, error) {
	var b, a map[string]json.RawMessage
	if err := json.Unmarshal(before, &b); err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(after, &a); err != nil {
		return nil, nil, err
	}
	ob, oa := map[string]any{}, map[string]any{}
	for k := range keysOf(a, b) {
		if bytes.Equal(b[k], a[k]) {
			continue
		}
		if k == "volumes" {
			vb, va, err := diffVolumes(b[k], a[k])
			if err != nil {
				return nil, nil, err
			}
			ob[k], oa[k] = vb, va
			continue
		}
		if v, ok := b[k]; ok {
			ob[k] = v
		}
		if v, ok := a[k]; ok {
			oa[k] = v
		}
	}
	jb, err := json.Marshal(ob)
	if err != nil {
		return nil, nil, err
	}
	ja, err := json.Marshal(oa)
	return jb, ja, err
}

func keysOf(ms ...map[string]json.RawMessage) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			out[k] = true
		}
	}
	return out
}

func diffVolumes(before, after json.RawMessage) (map[string]json.RawMessage, map[string]json.RawMessage, error) {
	index := func(raw json.RawMessage) (map[string]json.RawMessage, error) {
		var vs []json.RawMessage
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &vs); err != nil {
				return nil, err
			}
		}
		m := map[string]json.RawMessage{}
		for _, v := range vs {
			var no struct {
				No int `json:"no"`
			}
			if err := json.Unmarshal(v, &no); err != nil {
				return nil, err
			}
			m[strconv.Itoa(no.No)] = v
		}
		return m, nil
	}
	b, err := index(before)
	if err != nil {
		return nil, nil, err
	}
	a, err := index(after)
	if err != nil {
		return nil, nil, err
	}
	ob, oa := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k := range keysOf(a, b) {
		if bytes.Equal(b[k], a[k]) {
			continue
		}
		if v, ok := b[k]; ok {
			ob[k] = v
		}
		if v, ok := a[k]; ok {
			oa[k] = v
		}
	}
	return ob, oa, nil
}
