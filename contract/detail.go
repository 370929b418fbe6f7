package contract

// The seed's enumerations of a work (§3), named as the seed names them. The
// documents keep codes and booleans (section, isOriginal, waitForFree, ...);
// these give the seed's names next to them, one definition for every tier.

// ContentType is the seed's content type of a section: WEBTOON, COMIC or
// NOVEL ("ALL" is a filter value, never a work's).
func ContentType(section string) string {
	switch section {
	case SectionWebtoon:
		return "WEBTOON"
	case SectionComic:
		return "COMIC"
	case SectionNovel:
		return "NOVEL"
	}
	return "ALL"
}

// Exclusivity is the seed's exclusivity: ORIGINAL, MONOPOLY or NONE.
func Exclusivity(p *Product) string {
	switch {
	case p.IsOriginal:
		return "ORIGINAL"
	case p.IsMonopoly:
		return "MONOPOLY"
	}
	return "NONE"
}

// FreeType is the seed's free type: how a reader gets volumes free, the
// strongest first (a wait-for-free work that also takes the jumping pass is
// WAIT_FOR_FREE): WAIT_FOR_FREE, GIFT, JUMPING_PASS or NONE.
func FreeType(p *Product) string {
	switch {
	case p.WaitForFree:
		return "WAIT_FOR_FREE"
	case p.Gift:
		return "GIFT"
	case p.JumpingPass:
		return "JUMPING_PASS"
	}
	return "NONE"
}

// View kinds (seed §3): a work's content is shown, or blinded behind the
// adult gate.
const (
	ViewContent = "CONTENT"
	ViewBlind   = "BLIND"
)

// Release timings (seed §3): a volume opened in the current release day
// (IMMEDIATE: readable now, just out), the next one opens later today (TODAY),
// or neither (NONE).
const (
	ReleaseNone      = "NONE"
	ReleaseImmediate = "IMMEDIATE"
	ReleaseToday     = "TODAY"
)

// Buy types of salesInfo's parts (seed §3): R rental, B buy, T ticket.
const (
	BuyTypeRental = "R"
	BuyTypeBuy    = "B"
	BuyTypeTicket = "T"
)

// RecentViewVol is the seed's recentViewVol: the volume the detail's main
// button opens. For a reader who has not read the work (and in the edge's
// cached detail, which is the same for everyone) it is the first volume
// (IsContinue false); for a member who has, the writer answers the volume
// they were reading (IsContinue true: "이어보기").
type RecentViewVol struct {
	No int `json:"no"`
	// IsPreView: the volume opens as a preview (not free, not the reader's).
	IsPreView bool `json:"isPreView"`
	// IsContinue: the reader was reading it; the button continues.
	IsContinue bool `json:"isContinue"`
	// NeedLogin: reading it in full needs a member (a visitor and a paid volume).
	NeedLogin bool   `json:"needLogin"`
	Title     string `json:"title"`
}

// ViewVol builds a recentViewVol for volume v. continued is whether the reader
// was reading it, member whether a member asks, owned whether they may read
// it in full (bought, rented or unlocked).
func ViewVol(v *Volume, continued, member, owned bool) RecentViewVol {
	paid := !v.IsFree && !owned
	return RecentViewVol{
		No:         v.No,
		IsPreView:  paid && v.PreviewPages > 0,
		IsContinue: continued,
		NeedLogin:  !member && !v.IsFree,
		Title:      v.Title,
	}
}
