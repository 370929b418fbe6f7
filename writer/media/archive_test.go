package media_test

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"sort"
	"testing"
)

func crc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

func zipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var names []string
	for n := range files {
		names = append(names, n)
	}
	// An EPUB's mimetype must come first; the rest in a fixed order.
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "mimetype") != (names[j] == "mimetype") {
			return names[i] == "mimetype"
		}
		return names[i] < names[j]
	})
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, n := range names {
		method := zip.Deflate
		if n == "mimetype" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// epubWith is a one-chapter EPUB whose body is body.
func epubWith(t testing.TB, body string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	add := func(name, data string, method uint16) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(data))
	}
	add("mimetype", "application/epub+zip", zip.Store)
	add("META-INF/container.xml", `<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OEBPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`, zip.Deflate)
	add("OEBPS/book.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`, zip.Deflate)
	add("OEBPS/c1.xhtml", `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>1</title></head><body>`+body+`</body></html>`, zip.Deflate)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// epubWithPicture is a one-chapter EPUB whose body is body, with a.png next
// to the chapter.
func epubWithPicture(t testing.TB, body string, pic []byte) []byte {
	t.Helper()
	return zipOf(t, map[string][]byte{
		"mimetype":               []byte("application/epub+zip"),
		"META-INF/container.xml": []byte(`<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OEBPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`),
		"OEBPS/book.opf":         []byte(`<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/><item id="a" href="a.png" media-type="image/png"/></manifest><spine><itemref idref="c1"/></spine></package>`),
		"OEBPS/c1.xhtml":         []byte(`<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>1</title></head><body>` + body + `</body></html>`),
		"OEBPS/a.png":            pic,
	})
}
