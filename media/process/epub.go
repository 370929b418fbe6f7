package process

import (
	"bytes"
	"encoding/xml"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Book is an EPUB made ready for the novel viewer: its reading order as
// chunks of sanitized XHTML body content, and the pictures they show, in the
// order first shown. Chunk HTML names picture i by imageURL(i).
type Book struct {
	Chunks [][]byte
	Images [][]byte
}

// ChunkBytes is the size a chunk is cut at (between top-level elements of a
// chapter's body): small enough for the viewer to show the first one at once.
const ChunkBytes = 48 << 10

// No EPUB reader module is available through this machine's Go proxy, so the
// container is read here with archive/zip (behind unzip's checks) and
// encoding/xml: container.xml names the package document, whose manifest and
// spine give the reading order (EPUB 3.3 §3, OCF §4).
type ocfContainer struct {
	Rootfiles []struct {
		FullPath  string `xml:"full-path,attr"`
		MediaType string `xml:"media-type,attr"`
	} `xml:"rootfiles>rootfile"`
}

type opfPackage struct {
	Manifest []struct {
		ID         string `xml:"id,attr"`
		Href       string `xml:"href,attr"`
		MediaType  string `xml:"media-type,attr"`
		Properties string `xml:"properties,attr"`
	} `xml:"manifest>item"`
	Spine []struct {
		IDRef  string `xml:"idref,attr"`
		Linear string `xml:"linear,attr"`
	} `xml:"spine>itemref"`
}

// EPUB reads a book. Scripts anywhere (script elements, event handler
// attributes, javascript: URLs, a manifest item marked scripted or of a
// script type, forms, frames and plugins) refuse the whole book: a creator's
// file with them is either broken or hostile, and the uploader should know.
// The rest is sanitized with bluemonday all the same: no style, no class, no
// link or picture that leaves the book (no external fetches).
func EPUB(data []byte, lim Limits, imageURL func(i int) string) (*Book, error) {
	files, err := unzip(data, lim)
	if err != nil {
		return nil, err
	}
	byName := make(map[string][]byte, len(files))
	for _, f := range files {
		byName[f.Name] = f.Data
	}
	var c ocfContainer
	if err := xml.Unmarshal(byName["META-INF/container.xml"], &c); err != nil || len(c.Rootfiles) == 0 {
		return nil, refuse(CodeArchive, msgEPUB, "container.xml: %v", err)
	}
	opfPath := c.Rootfiles[0].FullPath
	var pkg opfPackage
	if err := xml.Unmarshal(byName[opfPath], &pkg); err != nil {
		return nil, refuse(CodeArchive, msgEPUB, "package document %s: %v", opfPath, err)
	}
	base := path.Dir(opfPath)
	items := map[string]string{} // id -> path in the archive
	for _, it := range pkg.Manifest {
		mt := strings.ToLower(it.MediaType)
		if strings.Contains(mt, "javascript") || strings.Contains(mt, "ecmascript") || hasWord(it.Properties, "scripted") {
			return nil, refuse(CodeScript, msgScript, "manifest item %s (%s, %q)", it.Href, it.MediaType, it.Properties)
		}
		items[it.ID] = resolve(base, it.Href)
	}
	b := &Book{}
	images := map[string]int{} // path -> index in b.Images
	for _, ref := range pkg.Spine {
		p, ok := items[ref.IDRef]
		if !ok {
			return nil, refuse(CodeArchive, msgEPUB, "spine names unknown item %q", ref.IDRef)
		}
		doc, ok := byName[p]
		if !ok {
			return nil, refuse(CodeArchive, msgEPUB, "spine item %s is missing", p)
		}
		chunks, err := chapter(doc, p, byName, images, b, imageURL)
		if err != nil {
			return nil, err
		}
		b.Chunks = append(b.Chunks, chunks...)
	}
	if len(b.Chunks) == 0 {
		return nil, refuse(CodeArchive, msgEPUB, "no text in the spine")
	}
	return b, nil
}

func hasWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

// resolve joins an href (URL-escaped, relative to dir) to an archive path.
func resolve(dir, href string) string {
	if u, err := url.PathUnescape(href); err == nil {
		href = u
	}
	href, _, _ = strings.Cut(href, "#")
	return strings.TrimPrefix(path.Clean(path.Join(dir, href)), "./")
}

// chapter turns one spine document into sanitized chunks.
func chapter(doc []byte, docPath string, byName map[string][]byte, images map[string]int, b *Book, imageURL func(int) string) ([][]byte, error) {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return nil, refuse(CodeArchive, msgEPUB, "%s: %v", docPath, err)
	}
	if err := scripted(root, docPath); err != nil {
		return nil, err
	}
	body := find(root, atom.Body)
	if body == nil {
		return nil, nil
	}
	dir := path.Dir(docPath)
	// Pictures of the book become pages of the volume; their src becomes
	// our URL. Anything else (outside the book, missing, not a picture we
	// process) is dropped rather than fetched from elsewhere.
	var drop []*html.Node
	walk(body, func(n *html.Node) {
		if n.Type != html.ElementNode || n.DataAtom != atom.Img {
			return
		}
		src := attr(n, "src")
		u, err := url.Parse(src)
		if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(src, "/") {
			drop = append(drop, n)
			return
		}
		p := resolve(dir, src)
		data, ok := byName[p]
		kind, serr := Sniff(data)
		if !ok || serr != nil || !IsImage(kind) {
			drop = append(drop, n)
			return
		}
		i, seen := images[p]
		if !seen {
			i = len(b.Images)
			images[p] = i
			b.Images = append(b.Images, data)
		}
		setAttr(n, "src", imageURL(i))
	})
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
	policy := bookPolicy()
	var chunks [][]byte
	var cur bytes.Buffer
	flush := func() {
		if s := bytes.TrimSpace(policy.SanitizeBytes(cur.Bytes())); len(s) > 0 {
			chunks = append(chunks, s)
		}
		cur.Reset()
	}
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		var one bytes.Buffer
		if err := html.Render(&one, c); err != nil {
			return nil, refuse(CodeArchive, msgEPUB, "%s: %v", docPath, err)
		}
		if cur.Len() > 0 && cur.Len()+one.Len() > ChunkBytes {
			flush()
		}
		cur.Write(one.Bytes())
	}
	flush()
	return chunks, nil
}

var refusedElements = map[atom.Atom]bool{
	atom.Script: true, atom.Iframe: true, atom.Frame: true, atom.Frameset: true, atom.Object: true,
	atom.Embed: true, atom.Applet: true, atom.Form: true, atom.Base: true,
}

// scripted finds anything that would run code in a reader's browser.
func scripted(root *html.Node, docPath string) error {
	var found string
	walk(root, func(n *html.Node) {
		if found != "" || n.Type != html.ElementNode {
			return
		}
		if refusedElements[n.DataAtom] || strings.EqualFold(n.Data, "script") {
			found = "<" + n.Data + ">"
			return
		}
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			v := strings.ToLower(strings.Map(func(r rune) rune {
				if r <= ' ' {
					return -1
				}
				return r
			}, a.Val))
			if strings.HasPrefix(k, "on") || strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "vbscript:") ||
				(strings.HasPrefix(v, "data:") && (k == "href" || k == "src" || strings.HasSuffix(k, ":href"))) && !strings.HasPrefix(v, "data:image/") {
				found = "<" + n.Data + " " + a.Key + ">"
				return
			}
		}
	})
	if found != "" {
		return refuse(CodeScript, msgScript, "%s in %s", found, docPath)
	}
	return nil
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func find(n *html.Node, a atom.Atom) *html.Node {
	var out *html.Node
	walk(n, func(x *html.Node) {
		if out == nil && x.Type == html.ElementNode && x.DataAtom == a {
			out = x
		}
	})
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func setAttr(n *html.Node, key, val string) {
	for i, a := range n.Attr {
		if a.Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

// ourImage matches the URLs chapter writes into img src: paths of our
// content (the viewer adds the content token), nothing with a host.
var ourImage = regexp.MustCompile(`^/content/[A-Za-z0-9_-]+/[0-9]+/[0-9a-f]+/[0-9]+$`)

// bookPolicy keeps the structure of prose (headings, paragraphs, emphasis,
// ruby for hanja readings, lists, tables, figures) and nothing that styles,
// scripts or fetches.
func bookPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "div", "span", "section", "article",
		"blockquote", "em", "strong", "b", "i", "u", "s", "small", "sub", "sup", "mark", "cite", "q", "abbr",
		"ruby", "rb", "rt", "rp", "ol", "ul", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tr", "th", "td",
		"caption", "figure", "figcaption", "pre", "code", "aside", "header", "footer", "nav")
	p.AllowAttrs("src").Matching(ourImage).OnElements("img")
	p.AllowAttrs("alt").OnElements("img")
	p.AllowAttrs("width", "height").Matching(bluemonday.Integer).OnElements("img")
	// In-book links only: footnotes and their way back.
	p.AllowAttrs("href").Matching(regexp.MustCompile(`^#[A-Za-z0-9_.:-]+$`)).OnElements("a")
	p.AllowAttrs("id").Matching(regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)).Globally()
	p.AllowAttrs("colspan", "rowspan").Matching(bluemonday.Integer).OnElements("td", "th")
	p.AllowRelativeURLs(true)
	return p
}
