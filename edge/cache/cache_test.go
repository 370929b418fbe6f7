package cache

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"
)

// The compressors are pooled and reused: every variant must still decode to
// its own body, whatever ran on the same writer before and alongside.
func TestPooledCompressorsKeepEveryBodyItsOwn(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				// Sizes from just above minCompress to ~60 KB, different content each.
				body := []byte(strings.Repeat(fmt.Sprintf(`{"title":"작품 %d-%d","n":%d},`, g, i, i*g), 20+i*i*2))
				e := NewEntry(200, body, 0, nil)
				if e.Gzip == nil || e.Brotli == nil {
					errs <- fmt.Errorf("%d bytes: no compressed variants", len(body))
					return
				}
				zr, err := gzip.NewReader(bytes.NewReader(e.Gzip))
				if err != nil {
					errs <- err
					return
				}
				gz, _ := io.ReadAll(zr)
				br, _ := io.ReadAll(brotli.NewReader(bytes.NewReader(e.Brotli)))
				if !bytes.Equal(gz, body) || !bytes.Equal(br, body) {
					errs <- fmt.Errorf("goroutine %d body %d: a variant decodes to another body", g, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSmallBodiesStayPlain(t *testing.T) {
	e := NewEntry(200, bytes.Repeat([]byte("a"), minCompress-1), 0, nil)
	if e.Gzip != nil || e.Brotli != nil {
		t.Fatal("a body under minCompress got compressed variants")
	}
}

func BenchmarkCompress(b *testing.B) {
	body := []byte(strings.Repeat(`{"pid":"wt000123","title":"나 혼자만 레벨업","authors":["추공"]},`, 300))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		NewEntry(200, body, 0, nil)
	}
}
