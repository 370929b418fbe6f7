package member

import (
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// GenreChoice is one entry of the interest genres.
type GenreChoice struct {
	ID         string `json:"integratedGenreId"`
	IsSelected bool   `json:"isSelected"`
}

type genreState struct {
	genres     []string
	configured bool
	rejected   bool
}

func (s *Service) loadGenres(r *http.Request, uid int64) (genreState, error) {
	var g genreState
	err := s.pool.QueryRow(r.Context(), `SELECT genres, configured, rejected FROM interest_genres WHERE uid = $1`, uid).Scan(&g.genres, &g.configured, &g.rejected)
	if errors.Is(err, pgx.ErrNoRows) {
		return g, nil
	}
	return g, err
}

// genresGet answers isConfigured, showsPopup and every genre with its selection.
func (s *Service) genresGet(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	g, err := s.loadGenres(r, uid)
	if err != nil {
		return err
	}
	sel := map[string]bool{}
	for _, id := range g.genres {
		sel[id] = true
	}
	list := make([]GenreChoice, len(contract.Genres))
	for i, cg := range contract.Genres {
		list[i] = GenreChoice{ID: cg.ID, IsSelected: sel[cg.ID]}
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsConfigured bool          `json:"isConfigured"`
		ShowsPopup   bool          `json:"showsPopup"`
		Genres       []GenreChoice `json:"genres"`
	}{ok(), g.configured, !g.configured && !g.rejected, list})
}

func (s *Service) genresExists(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	g, err := s.loadGenres(r, uid)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsConfigured bool `json:"isConfigured"`
		ShowsPopup   bool `json:"showsPopup"`
	}{ok(), g.configured, !g.configured && !g.rejected})
}

// genresReject records that the member dismissed the sheet: 204.
func (s *Service) genresReject(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	if _, err := s.pool.Exec(r.Context(), `INSERT INTO interest_genres (uid, rejected, updated_at) VALUES ($1, true, $2)
		ON CONFLICT (uid) DO UPDATE SET rejected = true, updated_at = EXCLUDED.updated_at`, uid, s.now()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// genresPut stores the selection: 201.
func (s *Service) genresPut(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	var body struct {
		Genres []GenreChoice `json:"genres"`
	}
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	if body.Genres == nil {
		return httpapi.BadRequest("관심 장르(genres)를 선택해 주세요.")
	}
	known := map[string]bool{}
	for _, g := range contract.Genres {
		known[g.ID] = true
	}
	selected := []string{}
	seen := map[string]bool{}
	for _, g := range body.Genres {
		if !known[g.ID] {
			return httpapi.BadRequest("알 수 없는 장르입니다. (%q)", g.ID)
		}
		if seen[g.ID] {
			return httpapi.BadRequest("같은 장르가 두 번 들어 있습니다. (%s)", g.ID)
		}
		seen[g.ID] = true
		if g.IsSelected {
			selected = append(selected, g.ID)
		}
	}
	if _, err := s.pool.Exec(r.Context(), `INSERT INTO interest_genres (uid, genres, configured, updated_at) VALUES ($1, $2, true, $3)
		ON CONFLICT (uid) DO UPDATE SET genres = EXCLUDED.genres, configured = true, updated_at = EXCLUDED.updated_at`, uid, selected, s.now()); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, contract.Envelope{Header: contract.Header{Code: 201}})
}
