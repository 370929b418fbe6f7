package httpapi_test

import (
	"testing"

	"storefront/writer/httpapi"
)

// CheckJSON runs on every money call's body: a purchase's costs no heap
// allocation.
func TestCheckJSONOfASmallBodyDoesNotAllocate(t *testing.T) {
	body := []byte(`{"uid":"41","pid":"wt0001","vols":[1,2,3],"buyType":"B","channel":"AW"}`)
	if n := testing.AllocsPerRun(100, func() {
		if err := httpapi.CheckJSON(body); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per CheckJSON", n)
	}
}
