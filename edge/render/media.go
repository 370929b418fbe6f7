package render

import (
	"time"

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
	Header       Header                  `json:"header"`
	PID          string                  `json:"pid"`
	No           int                     `json:"no"`
	Ver          string                  `json:"ver"`
	Base         string                  `json:"base"`
	Kind         string                  `json:"kind"`
	PreviewPages int                     `json:"previewPages"`
	Formats      []string                `json:"formats"`
	Pages        []contract.ManifestPage `json:"pages"`
	Chunks       int                     `json:"chunks"`
}

// VolumeMediaOf renders the manifest of volume no of pid: 404 while the
// volume has no processed content (or is not released), 403 for an adult work
// in the teen version, like its volume list. manifest gives a version's
// manifest (contract.ContentManifest, an object of the content store) when
// the edge has it at hand, without waiting: a version it does not have yet
// is a 503 that is not kept (the caller fetches manifests before rendering).
func VolumeMediaOf(v *catalog.View, pid string, no int, manifest func(ver string) *contract.ContentManifest) (int, any) {
	p := v.Lookup(pid)
	if p == nil {
		return 404, contract.Envelope{Header: Header{Code: 404, Message: "작품을 찾을 수 없습니다."}}
	}
	if !v.Visible(p) {
		return 403, contract.Envelope{Header: Header{Code: 403, Message: "성인 인증이 필요합니다."}}
	}
	vol, _ := v.VolumeByNo(p, no)
	preview := 0
	if vol != nil {
		preview = vol.PreviewPages
	} else {
		// Sold early: its buyers read it before the release, every page
		// with their token (no public preview yet).
		vol, _ = v.EarlyVolumeByNo(p, no)
	}
	if vol == nil || vol.ContentVer == "" {
		return 404, contract.Envelope{Header: Header{Code: 404, Message: "회차 내용을 찾을 수 없습니다."}}
	}
	var cur *contract.ContentManifest
	if manifest != nil {
		cur = manifest(vol.ContentVer)
	}
	if cur == nil {
		v.Until(v.Now.Add(time.Nanosecond))
		return 503, contract.Envelope{Header: Header{Code: 503, Message: "일시적인 오류입니다. 잠시 후 다시 시도해 주세요."}}
	}
	out := VolumeManifest{Header: OK, PID: p.PID, No: no, Ver: cur.Ver, Base: contract.VolumeMediaBase(p.PID, no, cur.Ver),
		Kind: cur.Kind, PreviewPages: preview, Formats: cur.Formats, Pages: make([]contract.ManifestPage, len(cur.Pages)), Chunks: cur.Chunks}
	if out.Formats == nil {
		out.Formats = []string{}
	}
	for i, pg := range cur.Pages {
		out.Pages[i] = pg
		if out.Pages[i].Widths == nil {
			out.Pages[i].Widths = []int{}
		}
	}
	return 200, out
}
