package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/media/store"
)

// backends runs f against a folder store and a bucket on the real
// S3-compatible server (versitygw).
func backends(t *testing.T, f func(t *testing.T, s *store.Store)) {
	t.Run("folder", func(t *testing.T) {
		s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "media"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		f(t, s)
	})
	t.Run("s3", func(t *testing.T) {
		s, err := store.Open(context.Background(), testenv.S3URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		f(t, s)
	})
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestPutIsContentAddressedAndGetReturnsTheBytes(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		data := randomBytes(70_000, 1)
		key, err := s.Put(ctx, data, "image/webp")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if key != hex.EncodeToString(sum[:]) {
			t.Fatalf("key %s is not the hex SHA-256 of the bytes", key)
		}
		again, err := s.Put(ctx, bytes.Clone(data), "image/webp")
		if err != nil || again != key {
			t.Fatalf("second put of the same bytes: %s, %v", again, err)
		}
		got, err := s.Get(ctx, key)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("get: %d bytes, %v", len(got), err)
		}
		ok, err := s.Exists(ctx, key)
		if err != nil || !ok {
			t.Fatalf("exists: %v %v", ok, err)
		}
		size, err := s.Size(ctx, key)
		if err != nil || size != int64(len(data)) {
			t.Fatalf("size %d, %v", size, err)
		}
		other, err := s.Put(ctx, randomBytes(10, 2), "image/jpeg")
		if err != nil || other == key {
			t.Fatalf("different bytes got key %s (%v)", other, err)
		}
	})
}

func TestRangeReaderReadsPartAndKnowsTheWhole(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		data := randomBytes(100_000, 3)
		key, err := s.Put(ctx, data, "image/avif")
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.NewRangeReader(ctx, key, 1000, 500)
		if err != nil {
			t.Fatal(err)
		}
		part, err := io.ReadAll(r)
		_ = r.Close()
		if err != nil || !bytes.Equal(part, data[1000:1500]) {
			t.Fatalf("range: %d bytes, %v", len(part), err)
		}
		if r.Size() != int64(len(data)) {
			t.Fatalf("size %d, want the whole object's %d", r.Size(), len(data))
		}
		if r.ContentType() != "image/avif" {
			t.Fatalf("content type %q", r.ContentType())
		}
		tail, err := s.NewRangeReader(ctx, key, 99_990, -1)
		if err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(tail)
		_ = tail.Close()
		if !bytes.Equal(rest, data[99_990:]) {
			t.Fatalf("tail: %d bytes", len(rest))
		}
	})
}

func TestMissingObjectsAreNotFoundAndDeleteIsRepeatable(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key, err := s.Put(ctx, []byte("page"), "image/jpeg")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("second delete: %v", err)
		}
		if _, err := s.Get(ctx, key); !store.IsNotFound(err) {
			t.Fatalf("get after delete: %v", err)
		}
		if _, err := s.NewRangeReader(ctx, key, 0, -1); !store.IsNotFound(err) {
			t.Fatalf("range after delete: %v", err)
		}
		if _, err := s.Size(ctx, key); !store.IsNotFound(err) {
			t.Fatalf("size after delete: %v", err)
		}
		if ok, err := s.Exists(ctx, key); ok || err != nil {
			t.Fatalf("exists after delete: %v %v", ok, err)
		}
	})
}

func TestKeysThatCouldEscapeAreRefused(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, key := range []string{"../x", "a/../../x", "/etc/passwd", "A", "a b", "a//b", "parts/", "", "a\\b", "%2e%2e/x"} {
			if err := s.PutAt(ctx, key, []byte("x"), "text/plain"); err == nil {
				t.Errorf("PutAt(%q) accepted", key)
			}
			if err := s.PutObject(ctx, key, []byte("x"), "text/plain"); err == nil {
				t.Errorf("PutObject(%q) accepted", key)
			}
			if _, err := s.Get(ctx, key); !store.IsNotFound(err) {
				t.Errorf("Get(%q): %v", key, err)
			}
			if err := s.Delete(ctx, key); err == nil {
				t.Errorf("Delete(%q) accepted", key)
			}
		}
	})
}

func TestScratchObjectsAreListedByPrefix(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, k := range []string{"parts/u1/1", "parts/u1/2", "parts/u2/1"} {
			if err := s.PutAt(ctx, k, []byte(k), "application/octet-stream"); err != nil {
				t.Fatal(err)
			}
		}
		keys, err := s.List(ctx, "parts/u1/")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(keys, ",") != "parts/u1/1,parts/u1/2" {
			t.Fatalf("listed %v", keys)
		}
		got, err := s.Get(ctx, "parts/u1/2")
		if err != nil || string(got) != "parts/u1/2" {
			t.Fatalf("get scratch: %q %v", got, err)
		}
	})
}

// A volume's pages are stored under keys derived from their version
// (contract.ContentObjectKey) and read back as they were written.
func TestContentObjectsAtDerivedKeys(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key := contract.ContentObjectKey("0a1b2c3d4e5f6a7b", 3, 720, contract.FormatJPEG)
		if err := s.PutObject(ctx, key, []byte("page 3"), "image/jpeg"); err != nil {
			t.Fatal(err)
		}
		o, err := s.NewRangeReader(ctx, key, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		got, _ := io.ReadAll(o)
		if string(got) != "page 3" || o.ContentType() != "image/jpeg" {
			t.Fatalf("%s: %q as %s", key, got, o.ContentType())
		}
	})
}

// A file bigger than the S3 client's part size goes up as a multipart
// upload; the server must put it together byte for byte.
func TestLargeObjectRoundTripsThroughS3Multipart(t *testing.T) {
	s, err := store.Open(context.Background(), testenv.S3URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	data := randomBytes(12<<20, 4)
	key, err := s.Put(ctx, data, "application/zip")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, key)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("12 MiB object: %d bytes back, %v", len(got), err)
	}
}

func TestS3CredentialsComeFromTheURL(t *testing.T) {
	good := testenv.S3URL(t)
	u, err := url.Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "wrong-secret")
	s, err := store.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Put(context.Background(), []byte("x"), "text/plain"); err == nil {
		t.Fatal("a wrong secret could write")
	}
	if strings.Contains(s.String(), "wrong-secret") {
		t.Fatalf("the store's name shows its secret: %s", s.String())
	}
}

func TestOpenRefusesUnknownSchemes(t *testing.T) {
	for _, u := range []string{"gs://bucket", "http://example.com/x", "", "s3://?endpoint=http://127.0.0.1:1"} {
		if s, err := store.Open(context.Background(), u); err == nil {
			_ = s.Close()
			t.Errorf("Open(%q) accepted", u)
		}
	}
}
