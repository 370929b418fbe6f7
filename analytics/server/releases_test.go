package server

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/natsutil"
)

// The live view's release times come from a work's head (its recent
// releases) and, for an older volume, from the page holding it: a work
// published in pages (issue 35) is not a work without volumes.
func TestCatalogReleasesFromHeadAndPages(t *testing.T) {
	t.Parallel()
	n := testenv.NATS(t)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vols, err := js.KeyValue(ctx, contract.VolumesBucket)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
	p := contract.Product{PID: "W1"}
	for no := 1; no <= 250; no++ {
		p.Volumes = append(p.Volumes, contract.Volume{No: no, ReleaseAt: now.Add(time.Duration(no-250) * 24 * time.Hour)})
	}
	head, pages := contract.SplitVolumes(&p, now)
	for _, pg := range pages {
		b, _ := json.Marshal(pg)
		if _, err := vols.Put(ctx, contract.VolumePageKey("W1", pg.Index), b); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(head)
	if _, err := kv.Put(ctx, contract.ProductKey("W1"), b); err != nil {
		t.Fatal(err)
	}
	rel := catalogReleases(kv, vols, func() time.Time { return now })
	for _, no := range []int{250, 245, 120, 7} {
		at, ok := rel(ctx, "W1", no)
		if !ok || !at.Equal(p.Volumes[no-1].ReleaseAt) {
			t.Fatalf("volume %d: %v %v, want %v", no, at, ok, p.Volumes[no-1].ReleaseAt)
		}
	}
	if _, ok := rel(ctx, "W1", 251); ok {
		t.Fatal("a volume the work does not have")
	}
}
