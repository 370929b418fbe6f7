package process

import (
	"strconv"
	"strings"
	"testing"
)

const containerXML = `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`

func opf(items, spine string) string {
	return `<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>시험</dc:title></metadata>
  <manifest>` + items + `</manifest>
  <spine>` + spine + `</spine>
</package>`
}

func xhtml(body string) string {
	return `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title>
<link rel="stylesheet" href="https://fonts.example.com/x.css"/></head><body>` + body + `</body></html>`
}

func epubOf(t *testing.T, items, spine string, files ...entry) []byte {
	all := []entry{
		{name: "mimetype", data: []byte("application/epub+zip")},
		{name: "META-INF/container.xml", data: []byte(containerXML)},
		{name: "OEBPS/content.opf", data: []byte(opf(items, spine))},
	}
	return zipOf(t, append(all, files...)...)
}

func imgURL(i int) string { return "/content/p1/3/abcd/" + strconv.Itoa(i+1) }

func TestEPUBIsReadInSpineOrderSanitizedWithItsPictures(t *testing.T) {
	pic := pngBytes(t, testPicture(40, 60, 9))
	book := epubOf(t,
		`<item id="c2" href="Text/ch%202.xhtml" media-type="application/xhtml+xml"/>
		 <item id="c1" href="Text/ch1.xhtml" media-type="application/xhtml+xml"/>
		 <item id="i1" href="Images/a.png" media-type="image/png"/>`,
		`<itemref idref="c1"/><itemref idref="c2"/>`,
		entry{name: "OEBPS/Text/ch1.xhtml", data: []byte(xhtml(
			`<h1 class="title" style="color:red">제1장</h1><p>첫 문장<ruby>漢<rt>한</rt></ruby>.<a href="#n1" id="r1">1</a></p>` +
				`<p><img src="../Images/a.png" alt="삽화"/><img src="https://tracker.example.com/p.gif"/><img src="../Images/missing.png"/></p>` +
				`<p><a href="https://evil.example.com/">나가기</a></p><aside id="n1">주석</aside>`))},
		entry{name: "OEBPS/Text/ch 2.xhtml", data: []byte(xhtml(`<p>둘째 장 <img src="../Images/a.png"/></p>`))},
		entry{name: "OEBPS/Images/a.png", data: pic},
	)
	if kind, _ := Sniff(book); kind != KindEPUB {
		t.Fatalf("sniffed %q, want epub", kind)
	}
	b, err := EPUB(book, DefaultLimits, imgURL)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Chunks) != 2 {
		t.Fatalf("%d chunks, want 2: %q", len(b.Chunks), b.Chunks)
	}
	one, two := string(b.Chunks[0]), string(b.Chunks[1])
	for _, want := range []string{"<h1>제1장</h1>", "<ruby>漢<rt>한</rt></ruby>", `<a href="#n1" id="r1">1</a>`, `<img src="/content/p1/3/abcd/1" alt="삽화"/>`, `<aside id="n1">주석</aside>`} {
		if !strings.Contains(one, want) {
			t.Errorf("chapter 1 lacks %s:\n%s", want, one)
		}
	}
	for _, bad := range []string{"style", "class", "tracker.example.com", "evil.example.com", "missing.png", "fonts.example.com", "<title>"} {
		if strings.Contains(one, bad) {
			t.Errorf("chapter 1 keeps %q:\n%s", bad, one)
		}
	}
	if !strings.Contains(two, `<img src="/content/p1/3/abcd/1"/>`) || !strings.HasPrefix(two, "<p>둘째 장") {
		t.Errorf("chapter 2: %s", two)
	}
	if len(b.Images) != 1 || string(b.Images[0]) != string(pic) {
		t.Fatalf("%d images, want the one picture once", len(b.Images))
	}
}

func TestLongChaptersAreCutBetweenElements(t *testing.T) {
	var body strings.Builder
	para := "<p>" + strings.Repeat("가나다라마바사 ", 200) + "</p>"
	for i := 0; i < 60; i++ {
		body.WriteString(para)
	}
	b, err := EPUB(epubOf(t, `<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`,
		entry{name: "OEBPS/c.xhtml", data: []byte(xhtml(body.String()))}), DefaultLimits, imgURL)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Chunks) < 3 {
		t.Fatalf("a %d KB chapter is %d chunks", body.Len()>>10, len(b.Chunks))
	}
	total := 0
	for i, c := range b.Chunks {
		if len(c) > ChunkBytes+len(para) || !strings.HasPrefix(string(c), "<p>") || !strings.HasSuffix(string(c), "</p>") {
			t.Fatalf("chunk %d: %d bytes, cut inside an element", i, len(c))
		}
		total += strings.Count(string(c), "<p>")
	}
	if total != 60 {
		t.Fatalf("%d paragraphs in the chunks, want 60", total)
	}
}

func TestEPUBWithScriptIsRefused(t *testing.T) {
	ch := func(body string) []byte {
		return epubOf(t, `<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`,
			entry{name: "OEBPS/c.xhtml", data: []byte(xhtml(body))})
	}
	cases := map[string][]byte{
		"script element":  ch(`<p>hi</p><script>fetch("/home/api/v1/auth/me")</script>`),
		"event handler":   ch(`<p onclick="alert(1)">hi</p>`),
		"img onerror":     ch(`<img src="x" onerror="alert(1)"/>`),
		"javascript href": ch(`<a href=" JaVaScRiPt:alert(1)">x</a>`),
		"svg script":      ch(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
		"iframe":          ch(`<iframe src="https://evil.example.com"></iframe>`),
		"form":            ch(`<form action="https://evil.example.com"><input name="pw"/></form>`),
		"data html":       ch(`<a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">x</a>`),
		"scripted item": epubOf(t, `<item id="c" href="c.xhtml" media-type="application/xhtml+xml" properties="scripted"/>`, `<itemref idref="c"/>`,
			entry{name: "OEBPS/c.xhtml", data: []byte(xhtml(`<p>hi</p>`))}),
		"script file": epubOf(t, `<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/><item id="j" href="a.js" media-type="text/javascript"/>`, `<itemref idref="c"/>`,
			entry{name: "OEBPS/c.xhtml", data: []byte(xhtml(`<p>hi</p>`))}, entry{name: "OEBPS/a.js", data: []byte("alert(1)")}),
	}
	for name, book := range cases {
		_, err := EPUB(book, DefaultLimits, imgURL)
		r, ok := AsRefusal(err)
		if !ok || r.Code != CodeScript {
			t.Errorf("%s: %v, want a script refusal", name, err)
		}
	}
}

func TestBrokenEPUBsAreRefused(t *testing.T) {
	cases := map[string][]byte{
		"no container": zipOf(t, entry{name: "mimetype", data: []byte("application/epub+zip")}),
		"spine names nothing": epubOf(t, `<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="zz"/>`,
			entry{name: "OEBPS/c.xhtml", data: []byte(xhtml(`<p>x</p>`))}),
		"missing chapter": epubOf(t, `<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`),
		"escaping path":   epubOf(t, `<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`, entry{name: "../c.xhtml", data: []byte("x")}),
		"empty":           epubOf(t, `<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`, entry{name: "OEBPS/c.xhtml", data: []byte(xhtml(` `))}),
	}
	for name, book := range cases {
		if _, err := EPUB(book, DefaultLimits, imgURL); err == nil {
			t.Errorf("%s: accepted", name)
		} else if _, ok := AsRefusal(err); !ok {
			t.Errorf("%s: %v is not a refusal", name, err)
		}
	}
}
