package catalog

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

// While the store loads, a review list stays JSON until a read needs it,
// and then reads exactly like one decoded on arrival; after the load lists
// are decoded on arrival (a bad one skipped, the previous kept).
func TestReviewsLoadedLazily(t *testing.T) {
	now := time.Date(2026, 11, 1, 14, 0, 0, 0, time.UTC)
	list := contract.ReviewList{Version: 3, Reviews: []contract.Review{
		{ID: 1, UserName: "ab***", Body: "재밌어요", Point: 8, Vol: 2, IsBuyerReview: true, LikeCnt: 4, CreatedAt: now.Add(-time.Hour)},
		{ID: 2, UserName: "cd***", Body: "스포 주의", Point: 10, IsSpoiler: true, CreatedAt: now.Add(-2 * time.Hour)},
	}}
	b, _ := json.Marshal(list)
	up := Update{Key: contract.KeyReviews + "w1", Value: b, Revision: 1}
	read := func(s *Store) *contract.ReviewList {
		var out *contract.ReviewList
		s.Read(now, false, func(v *View) { out = v.Reviews("w1") })
		return out
	}

	eager := New(cache.NewTags())
	if errs := eager.Apply(now, up); len(errs) > 0 {
		t.Fatal(errs)
	}
	if eager.reviews["w1"].raw != nil {
		t.Fatal("a list arriving after the load was kept as JSON")
	}
	lazy := New(cache.NewTags())
	lazy.SetLoading(true)
	if errs := lazy.Apply(now, up); len(errs) > 0 {
		t.Fatal(errs)
	}
	if lazy.reviews["w1"].raw == nil {
		t.Fatal("a list loaded at start was decoded before any read")
	}
	got, want := read(lazy), read(eager)
	if want == nil || want.PID != "w1" || !reflect.DeepEqual(got, want) {
		t.Fatalf("lazily decoded %+v, decoded on arrival %+v", got, want)
	}
	if lazy.reviews["w1"].raw != nil {
		t.Fatal("the JSON is kept after the first read")
	}

	// After the load: a bad document is refused and the list stays.
	lazy.SetLoading(false)
	if errs := lazy.Apply(now, Update{Key: contract.KeyReviews + "w1", Value: []byte(`{"reviews":1}`), Revision: 2}); len(errs) != 1 {
		t.Fatalf("bad document after the load: errors %v", errs)
	}
	if got := read(lazy); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a bad document: %+v", got)
	}
	// A bad document kept during the load reads as no list.
	loading := New(cache.NewTags())
	loading.SetLoading(true)
	loading.Apply(now, Update{Key: contract.KeyReviews + "w1", Value: []byte(`{"reviews":1}`), Revision: 1})
	if got := read(loading); got != nil {
		t.Fatalf("a list that does not decode read as %+v", got)
	}
}
