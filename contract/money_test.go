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
