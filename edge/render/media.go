package render

import (
	"slices"

	"storefront/contract"
	"storefront/edge/catalog"
)

// VolumeManifest is what the viewer needs to lay out the current version of a
// volume's processed content before any byte arrives: the version's base URL,
// every page's size (it reserves Height/Width of the screen's width), the
// widths each page comes in and the formats every page has, so it can build
// srcset and <picture> sources (<base>/<n>/<w>.<ext>), or the number of text
// chunks (<base>/<n>.html). Pages up to previewPages need no token; the rest
// take the download-auth token as ?t=.
type VolumeManifest struct {
	Header       Header         `json:"header"`
	PID          string         `json:"pid"`
	No           int            `json:"no"`
	Ver          string         `json:"ver"`
	Base         string         `json:"base"`
	Kind         string         `json:"kind"`
	PreviewPages int            `json:"previewPages"`
	Formats      []string       `json:"formats"`
	Pages        []ManifestPage `json:"pages"`
	Chunks       int            `json:"chunks"`
}

// ManifestPage is one page (a comic page or a strip segment).
type ManifestPage struct {
	W      int   `json:"w"`
	H      int   `json:"h"`
	Widths []int `json:"widths"`
}

// formatOrder is the viewer's preference, as the edge's negotiation.
var formatOrder = []string{contract.FormatAVIF, contract.FormatWebP, contract.FormatJPEG}

// VolumeMediaOf renders the manifest of volume no of pid: 404 while the
// volume has no processed content (or is not released), 403 for an adult work
// in the teen version, like its volume list.
func VolumeMediaOf(v *catalog.View, pid string, no int) (int, any) {
	p := v.Lookup(pid)
	if p == nil {
		return 404, contract.Envelope{Header: Header{Code: 404, Message: "작품을 찾을 수 없습니다."}}
	}
	if !v.Visible(p) {
		return 403, contract.Envelope{Header: Header{Code: 403, Message: "성인 인증이 필요합니다."}}
	}
	var vol *contract.Volume
	for _, x := range v.Volumes(p) {
		if x.No == no {
			vol = &x
			break
		}
	}
	m := v.VolumeMedia(p, no)
	if vol == nil || m == nil {
		return 404, contract.Envelope{Header: Header{Code: 404, Message: "회차 내용을 찾을 수 없습니다."}}
	}
	cur := &m.Current
	out := VolumeManifest{Header: OK, PID: p.PID, No: no, Ver: cur.Ver, Base: contract.VolumeMediaBase(p.PID, no, cur.Ver),
		Kind: cur.Kind, PreviewPages: vol.PreviewPages, Formats: []string{}, Pages: []ManifestPage{}, Chunks: len(cur.Texts)}
	for _, f := range formatOrder {
		every := len(cur.Pages) > 0
		for i := range cur.Pages {
			if !slices.ContainsFunc(cur.Pages[i].Variants, func(x contract.MediaVariant) bool { return x.Format == f }) {
				every = false
				break
			}
		}
		if every {
			out.Formats = append(out.Formats, f)
		}
	}
	for _, pg := range cur.Pages {
		mp := ManifestPage{W: pg.Width, H: pg.Height, Widths: []int{}}
		for _, x := range pg.Variants {
			if !slices.Contains(mp.Widths, x.Width) {
				mp.Widths = append(mp.Widths, x.Width)
			}
		}
		slices.Sort(mp.Widths)
		out.Pages = append(out.Pages, mp)
	}
	return 200, out
}
