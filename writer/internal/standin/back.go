package standin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// Back sends the browser from a stand-in's window back to the store's page
// target with q added to its query, as the provider's window does (303). With
// no target (a test or a script drove the window) q is answered as a JSON
// object instead, one value per key.
func Back(w http.ResponseWriter, r *http.Request, target string, q url.Values) {
	if target == "" {
		flat := map[string]string{}
		for k := range q {
			flat[k] = q.Get(k)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_ = json.NewEncoder(w).Encode(flat)
		return
	}
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	http.Redirect(w, r, target+sep+q.Encode(), http.StatusSeeOther)
}
