package writertest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// volumeBuckets maps a catalog bucket JS returned to the volume pages
// bucket of the same server, so tests holding only the catalog bucket read
// works whole (Work).
var volumeBuckets sync.Map // jetstream.KeyValue -> jetstream.KeyValue

// Work decodes b, the value of prod.<pid> in the catalog bucket kv (as JS
// returned it), and joins the volume pages its head names, read from the
// volumes bucket: the work with its volumes inline, as the writer loads it
// (contract.JoinVolumes). ok is false while a page is missing or of another
// version (a later change's page stored before its head): in a WaitKV
// predicate, answer false and the wait reads the head again.
func Work(t testing.TB, kv jetstream.KeyValue, b []byte) (p contract.Product, ok bool) {
	t.Helper()
	var head contract.Product
	if err := json.Unmarshal(b, &head); err != nil {
		t.Fatalf("kv value is not a product: %v", err)
	}
	if head.VolumeIndex == nil {
		return head, true
	}
	vols := VolumesKV(t, kv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pages := make([]contract.VolumePage, 0, len(head.VolumeIndex.Pages))
	for _, ref := range head.VolumeIndex.Pages {
		e, err := vols.Get(ctx, contract.VolumePageKey(head.PID, ref.Index))
		if err != nil {
			return head, false
		}
		var pg contract.VolumePage
		if err := json.Unmarshal(e.Value(), &pg); err != nil {
			t.Fatalf("page %s is not a volume page: %v", e.Key(), err)
		}
		pages = append(pages, pg)
	}
	p, err := contract.JoinVolumes(&head, pages)
	return p, err == nil
}

// MustWork is Work that fails the test when the pages do not match.
func MustWork(t testing.TB, kv jetstream.KeyValue, b []byte) contract.Product {
	t.Helper()
	p, ok := Work(t, kv, b)
	if !ok {
		t.Fatalf("work %s: volume pages missing or not those its head names", p.PID)
	}
	return p
}

// VolumesKV is the volume pages bucket beside the catalog bucket kv.
func VolumesKV(t testing.TB, kv jetstream.KeyValue) jetstream.KeyValue {
	t.Helper()
	v, ok := volumeBuckets.Load(kv)
	if !ok {
		t.Fatal("catalog bucket not from writertest.JS: its volume pages bucket is unknown")
	}
	return v.(jetstream.KeyValue)
}
