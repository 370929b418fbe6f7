package contract_test

import (
	"encoding/json"
	"os"
	"testing"

	"storefront/contract"
)

// MoneyCases is contract/cases/money-by-channel.json.
type MoneyCases struct {
	Cases []struct {
		Channel      string `json:"channel"`
		Money        string `json:"money"`
		BonusBanners bool   `json:"bonusBanners"`
	} `json:"cases"`
	FirstChargeBonus []struct {
		Amount int64 `json:"amount"`
		Pct    int64 `json:"pct"`
		Bonus  int64 `json:"bonus"`
	} `json:"firstChargeBonus"`
}

func readCases(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("cases/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestMoneyByChannelCases(t *testing.T) {
	var mc MoneyCases
	readCases(t, "money-by-channel.json", &mc)
	if len(mc.Cases) < 7 || len(mc.FirstChargeBonus) == 0 {
		t.Fatalf("table too short: %+v", mc)
	}
	for _, c := range mc.Cases {
		if got := contract.MoneyFor(c.Channel); got != c.Money {
			t.Errorf("MoneyFor(%q) = %q, want %q", c.Channel, got, c.Money)
		}
		if got := contract.BonusBanners(c.Channel); got != c.BonusBanners {
			t.Errorf("BonusBanners(%q) = %v, want %v", c.Channel, got, c.BonusBanners)
		}
	}
	for _, c := range mc.FirstChargeBonus {
		if got := contract.FirstChargeBonus(c.Amount, c.Pct); got != c.Bonus {
			t.Errorf("FirstChargeBonus(%d, %d) = %d, want %d", c.Amount, c.Pct, got, c.Bonus)
		}
	}
}

// AudienceCases is contract/cases/audience.json.
type AudienceCases struct {
	Cases []struct {
		Channel      string `json:"channel"`
		Login        bool   `json:"login"`
		Level        int    `json:"level"`
		TeenVersion  bool   `json:"teenVersion"`
		AdultContent bool   `json:"adultContent"`
		Gate         string `json:"gate"`
	} `json:"cases"`
}

func TestAudienceCases(t *testing.T) {
	var ac AudienceCases
	readCases(t, "audience.json", &ac)
	seen := map[string]bool{}
	for _, c := range ac.Cases {
		seen[c.Channel] = true
		adultCh := contract.AdultChannel(c.Channel)
		if got := contract.TeenVersion(c.Level, adultCh); got != c.TeenVersion {
			t.Errorf("%+v: TeenVersion %v", c, got)
		}
		if got := contract.AdultContent(c.Level, adultCh); got != c.AdultContent {
			t.Errorf("%+v: AdultContent %v", c, got)
		}
		if got := contract.AdultGate(adultCh, c.Login, c.Level); got != c.Gate {
			t.Errorf("%+v: AdultGate %q", c, got)
		}
	}
	if len(seen) != 6 {
		t.Fatalf("the table covers %d channels, want all six", len(seen))
	}
}
