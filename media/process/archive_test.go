package process

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"strconv"
	"strings"
	"testing"
)

type entry struct {
	name string
	data []byte
	raw  *zip.FileHeader // written as is (sizes that lie)
}

func zipOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		if e.raw != nil {
			w, err := zw.CreateRaw(e.raw)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(e.data)
			continue
		}
		method := zip.Deflate
		if e.name == "mimetype" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestZipPagesComeInNaturalOrderWithoutDroppings(t *testing.T) {
	var entries []entry
	for _, n := range []int{10, 2, 1} {
		entries = append(entries, entry{name: "vol/page" + strconv.Itoa(n) + ".jpg", data: jpegBytes(t, testPicture(8*n, 8, uint64(n)))})
	}
	entries = append(entries,
		entry{name: "__MACOSX/vol/._page1.jpg", data: []byte("mac resource fork")},
		entry{name: "vol/.DS_Store", data: []byte("junk")},
		entry{name: "ComicInfo.xml", data: []byte("<ComicInfo/>")},
		entry{name: "vol/", data: nil})
	pages, err := ZipPages(zipOf(t, entries...), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 {
		t.Fatalf("%d pages, want 3", len(pages))
	}
	for i, want := range []int{1, 2, 10} {
		w, _, err := Dimensions(pages[i], DefaultLimits)
		if err != nil || w != 8*want {
			t.Fatalf("page %d is %d wide (%v), want page%d", i+1, w, err, want)
		}
	}
}

func TestBadArchivesAreRefused(t *testing.T) {
	page := jpegBytes(t, testPicture(16, 16, 1))
	zeros := make([]byte, 20<<20)
	lie := &zip.FileHeader{Name: "page.jpg", Method: zip.Store, CompressedSize64: uint64(len(page)), UncompressedSize64: 100, CRC32: crc32.ChecksumIEEE(page)}
	many := make([]entry, 0, 2001)
	for i := 0; i <= 2000; i++ {
		many = append(many, entry{name: "p" + strconv.Itoa(i) + ".jpg", data: page})
	}
	cases := []struct {
		name string
		data []byte
		code string
	}{
		{"dot-dot path", zipOf(t, entry{name: "../../etc/cron.d/x.jpg", data: page}), CodeArchive},
		{"dot-dot inside", zipOf(t, entry{name: "a/../../x.jpg", data: page}), CodeArchive},
		{"absolute path", zipOf(t, entry{name: "/tmp/x.jpg", data: page}), CodeArchive},
		{"backslash path", zipOf(t, entry{name: `..\..\x.jpg`, data: page}), CodeArchive},
		{"zip bomb by ratio", zipOf(t, entry{name: "bomb.jpg", data: zeros}), CodeArchive},
		{"size that lies", zipOf(t, entry{name: "page.jpg", data: page, raw: lie}), CodeArchive},
		{"too many entries", zipOf(t, many...), CodeArchive},
		{"svg page", zipOf(t, entry{name: "p1.jpg", data: page}, entry{name: "p2.jpg", data: []byte(`<svg onload="alert(1)"/>`)}), CodeType},
		{"html page", zipOf(t, entry{name: "index.html", data: []byte(`<script>alert(1)</script>`)}), CodeType},
		{"no pictures", zipOf(t, entry{name: "ComicInfo.xml", data: []byte("<x/>")}), CodeArchive},
		{"not a zip", []byte("PK\x03\x04 but nothing else"), CodeArchive},
	}
	for _, c := range cases {
		_, err := ZipPages(c.data, DefaultLimits)
		r, ok := AsRefusal(err)
		if !ok || r.Code != c.code || r.Message == "" {
			t.Errorf("%s: %v, want refusal %s", c.name, err, c.code)
		}
	}
	if total := (Limits{MaxArchiveFiles: 10, MaxArchiveBytes: 1000, MaxRatio: 1000}); true {
		_, err := ZipPages(zipOf(t, entry{name: "a.jpg", data: page}, entry{name: "b.jpg", data: page}), total)
		if r, ok := AsRefusal(err); !ok || !strings.Contains(r.Detail, "more than 1000 bytes") {
			t.Errorf("archive over MaxArchiveBytes: %v", err)
		}
	}
}

func TestNaturalOrder(t *testing.T) {
	names := []string{"p10.jpg", "p9.jpg", "p1.jpg", "p01b.jpg", "ch2/p1.jpg", "ch10/p1.jpg"}
	for i := range names {
		for j := range names {
			if naturalLess(names[i], names[j]) && naturalLess(names[j], names[i]) {
				t.Fatalf("%s and %s both less", names[i], names[j])
			}
		}
	}
	if !naturalLess("p9.jpg", "p10.jpg") || !naturalLess("ch2/p1.jpg", "ch10/p1.jpg") || naturalLess("p10.jpg", "p9.jpg") {
		t.Fatal("numbers are not compared as numbers")
	}
}
