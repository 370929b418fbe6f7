package contract_test

import (
	"testing"

	"storefront/contract"
)

// The seed's enumerations by its names, one definition for edge and writer.
func TestSeedEnums(t *testing.T) {
	for sec, want := range map[string]string{"WT": "WEBTOON", "CM": "COMIC", "EB": "NOVEL", "": "ALL"} {
		if got := contract.ContentType(sec); got != want {
			t.Errorf("ContentType(%q) = %s, want %s", sec, got, want)
		}
	}
	for _, c := range []struct {
		p          contract.Product
		excl, free string
	}{
		{contract.Product{}, "NONE", "NONE"},
		{contract.Product{IsOriginal: true, JumpingPass: true}, "ORIGINAL", "JUMPING_PASS"},
		{contract.Product{IsMonopoly: true, Gift: true, JumpingPass: true}, "MONOPOLY", "GIFT"},
		{contract.Product{WaitForFree: true, Gift: true}, "NONE", "WAIT_FOR_FREE"},
	} {
		if got := contract.Exclusivity(&c.p); got != c.excl {
			t.Errorf("Exclusivity(%+v) = %s, want %s", c.p, got, c.excl)
		}
		if got := contract.FreeType(&c.p); got != c.free {
			t.Errorf("FreeType(%+v) = %s, want %s", c.p, got, c.free)
		}
	}
}

// recentViewVol: a free volume opens in full for anyone; a paid one opens as
// a preview (if it has preview pages) unless the reader owns it, and needs a
// member to read in full.
func TestViewVol(t *testing.T) {
	free := contract.Volume{No: 1, Title: "1화", IsFree: true, PreviewPages: 2}
	paid := contract.Volume{No: 3, Title: "3화", PreviewPages: 2}
	noPreview := contract.Volume{No: 4, Title: "4화"}
	for _, c := range []struct {
		v                        contract.Volume
		continued, member, owned bool
		want                     contract.RecentViewVol
	}{
		{free, false, false, false, contract.RecentViewVol{No: 1, Title: "1화"}},
		{paid, false, false, false, contract.RecentViewVol{No: 3, Title: "3화", IsPreView: true, NeedLogin: true}},
		{paid, true, true, false, contract.RecentViewVol{No: 3, Title: "3화", IsPreView: true, IsContinue: true}},
		{paid, true, true, true, contract.RecentViewVol{No: 3, Title: "3화", IsContinue: true}},
		{noPreview, false, true, false, contract.RecentViewVol{No: 4, Title: "4화"}},
	} {
		if got := contract.ViewVol(&c.v, c.continued, c.member, c.owned); got != c.want {
			t.Errorf("ViewVol(%+v, %v, %v, %v) = %+v, want %+v", c.v, c.continued, c.member, c.owned, got, c.want)
		}
	}
}
