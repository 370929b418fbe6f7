package media_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/writer/internal/writertest"
)

// TestLegacyVolumesMoveToDerivedKeysWithoutAGap: a store that ran before
// derived keys has a media.vol.* document per volume, its objects under
// content hashes and a media_refs row per variant. The writer converts it
// while running: the version's objects are copied to derived keys with a
// manifest, and the work names the version (edges of this release serve
// it), while the old document and objects stay for the grace period (edges
// of the previous release still read them). After the grace, the old
// document's key, its references and the objects only it used are gone.
func TestLegacyVolumesMoveToDerivedKeysWithoutAGap(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P20", "CM")
	ctx := context.Background()
	jpg, webp := jpegOf(t, picture(300, 400, 61)), []byte("RIFF\x00\x00\x00\x00WEBPVP8 legacy")
	jk, err := e.store.Put(ctx, jpg, "image/jpeg")
	if err != nil {
		t.Fatal(err)
	}
	wk, err := e.store.Put(ctx, webp, "image/webp")
	if err != nil {
		t.Fatal(err)
	}
	const ver = "00aa11bb22cc33dd"
	old := contract.VolumeMediaVersion{Ver: ver, Kind: contract.MediaKindImages, Pages: []contract.MediaImage{{Width: 300, Height: 400,
		Variants: []contract.MediaVariant{{Width: 300, Height: 400, Format: contract.FormatWebP, Key: wk, Size: int64(len(webp))},
			{Width: 300, Height: 400, Format: contract.FormatJPEG, Key: jk, Size: int64(len(jpg))}}}}}
	doc, _ := json.Marshal(old)
	// The state the previous release left, written as it wrote it.
	if _, err := e.Pool.Exec(ctx, `INSERT INTO volume_media (pid, no, ver, doc) VALUES ('P20', 1, $1, $2)`, ver, doc); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(ctx, `INSERT INTO media_refs (owner, key) VALUES ($1, $2), ($1, $3)`, "vol:P20:1:"+ver, wk, jk); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(ctx, `INSERT INTO outbox (kind, key) VALUES ('kv', $1)`, contract.VolumeMediaKey("P20", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Srv.Media().ConvertLegacy(ctx); err != nil {
		t.Fatal(err)
	}
	// This release's edges: the work names the version, its objects are at
	// derived keys, its manifest says what there is.
	vol, m := e.content("P20", 1, func(v contract.Volume, _ contract.ContentManifest) bool { return v.ContentVer == ver })
	if vol.ContentVer != ver || len(m.Pages) != 1 || m.Pages[0].W != 300 || m.Pages[0].H != 400 || len(m.Formats) != 2 {
		t.Fatalf("converted volume %+v, manifest %+v", vol, m)
	}
	for f, want := range map[string][]byte{contract.FormatWebP: webp, contract.FormatJPEG: jpg} {
		b, err := e.store.Get(ctx, contract.ContentObjectKey(ver, 1, 300, f))
		if err != nil || !bytes.Equal(b, want) {
			t.Fatalf("%s at its derived key: %d bytes, %v", f, len(b), err)
		}
	}
	// The previous release's edges: the old document and objects are still there.
	writertest.WaitKV(t, e.KV, contract.VolumeMediaKey("P20", 1), 10*time.Second, func(b []byte) bool {
		var vm contract.VolumeMedia
		return json.Unmarshal(b, &vm) == nil && vm.Current.Ver == ver
	})
	if n, err := e.Srv.Media().Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("sweep within grace: %d, %v", n, err)
	}
	for _, k := range []string{wk, jk} {
		if ok, _ := e.store.Exists(ctx, k); !ok {
			t.Fatalf("legacy object %s removed within the grace period", k)
		}
	}
	// Converting again changes nothing.
	if n, err := e.Srv.Media().ConvertLegacy(ctx); err != nil || n != 0 {
		t.Fatalf("a second conversion: %d, %v", n, err)
	}

	e.clock.Store(int64(2 * time.Hour / time.Second))
	if _, err := e.Srv.Media().Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	writertest.Eventually(t, 10*time.Second, "the media.vol key deleted", func() bool {
		_, err := e.KV.Get(ctx, contract.VolumeMediaKey("P20", 1))
		return errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted)
	})
	for _, k := range []string{wk, jk} {
		if ok, _ := e.store.Exists(ctx, k); ok {
			t.Fatalf("legacy object %s still stored after the grace period", k)
		}
	}
	e.checkVersionBytes(m)
	e.noVolumeDocuments()
	if after, _ := e.content("P20", 1, func(contract.Volume, contract.ContentManifest) bool { return true }); after.ContentVer != ver {
		t.Fatalf("the volume lost its version: %+v", after)
	}
}

// checkVersionBytes checks every object of a version is stored.
func (e *env) checkVersionBytes(m contract.ContentManifest) {
	e.T.Helper()
	for _, k := range contract.ContentKeys(&m) {
		if ok, err := e.store.Exists(context.Background(), k); err != nil || !ok {
			e.T.Fatalf("object %s missing (%v)", k, err)
		}
	}
}
