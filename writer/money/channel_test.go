package money_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"storefront/contract"
	"storefront/writer/money"
)

// moneyCases is contract/cases/money-by-channel.json, the table the frontend
// is checked against too.
type moneyCases struct {
	Cases []struct {
		Channel      string `json:"channel"`
		Money        string `json:"money"`
		BonusBanners bool   `json:"bonusBanners"`
	} `json:"cases"`
}

// TestMoneyByChannelTable runs the shared table against real answers: on each
// channel the wallet names and shows the table's money, a purchase spends it
// (nothing of the others), and the join-bonus and first-charge banners show
// only where the table says (never in the iOS app). The wallet also tells the
// page the configured first-charge bonus.
func TestMoneyByChannelTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../contract/cases/money-by-channel.json")
	if err != nil {
		t.Fatal(err)
	}
	var mc moneyCases
	if err := json.Unmarshal(b, &mc); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, money.Config{FirstChargeBonusPct: 15})
	e.addWork(work{pid: "chw", vols: 20, price: 100})
	for i, c := range mc.Cases {
		uid := int64(700 + i)
		e.fund(uid, money.Blue, 1000)
		e.fund(uid, money.Android, 2000)
		e.fund(uid, money.IOS, 3000)
		w := e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid, channel: c.Channel}).mustOK(t)
		if w["shownMoney"] != c.Money || w["shownAmount"].(float64) != float64(e.balance(uid, c.Money)) {
			t.Errorf("channel %q: wallet shows %v %v, want %s %d", c.Channel, w["shownMoney"], w["shownAmount"], c.Money, e.balance(uid, c.Money))
		}
		for _, banner := range []string{"join_bonus", "firstbill"} {
			if got := w[banner].(map[string]any)["valid"]; got != c.BonusBanners {
				t.Errorf("channel %q: %s.valid = %v, want %v", c.Channel, banner, got, c.BonusBanners)
			}
		}
		if w["firstChargeBonusPct"].(float64) != 15 {
			t.Errorf("channel %q: firstChargeBonusPct %v, want the configured 15", c.Channel, w["firstChargeBonusPct"])
		}
		before := map[string]int64{}
		for _, m := range []string{money.Blue, money.Android, money.IOS} {
			before[m] = e.balance(uid, m)
		}
		e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(), channel: c.Channel,
			body: map[string]any{"pid": "chw", "buyType": "B", "vols": []int{i + 1}}}).mustOK(t)
		for _, m := range []string{money.Blue, money.Android, money.IOS} {
			want := before[m]
			if m == c.Money {
				want -= 100
			}
			if got := e.balance(uid, m); got != want {
				t.Errorf("channel %q: %s %d after a purchase, want %d", c.Channel, m, got, want)
			}
		}
		if contract.MoneyFor(c.Channel) != c.Money {
			t.Errorf("contract.MoneyFor(%q) disagrees with the table", c.Channel)
		}
	}
	e.checkLedger()
}

// TestAudienceTableRefusals runs contract/cases/audience.json against the
// writer's sales: a member at each adult level on each channel buys a volume
// of a 19 work exactly where the table shows adult content, and elsewhere
// gets the refusal of the table's gate (the words the frontend's gate says).
func TestAudienceTableRefusals(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../contract/cases/audience.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []struct {
			Channel string `json:"channel"`
			Login   bool   `json:"login"`
			Level   int    `json:"level"`
			Gate    string `json:"gate"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "a19t", vols: 40, price: 100, age: 19})
	now := e.clock.Now()
	words := map[string]string{
		contract.GateNotInApp: "이 앱에서는", contract.GateVerify: "성인 인증 후",
		contract.GateTeen: "만 19세 미만", contract.GateToggle: "성인 작품 보기(19)",
	}
	vol := 0
	for i, c := range table.Cases {
		if !c.Login { // the writer sells to members only
			continue
		}
		uid := int64(900 + i)
		switch c.Level {
		case 0: // never verified: no account row needed
		case 1:
			e.addMember(uid, true, false, true, now.AddDate(-16, 0, 0))
		case 2:
			e.addMember(uid, true, true, true, now.AddDate(-30, 0, 0))
		case 3:
			e.addMember(uid, true, true, false, now.AddDate(-30, 0, 0))
		}
		e.fund(uid, contract.MoneyFor(c.Channel), 1000)
		vol++
		r := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(), channel: c.Channel,
			body: map[string]any{"pid": "a19t", "buyType": "B", "vols": []int{vol}}})
		if c.Gate == contract.GateNone {
			r.mustOK(t)
			continue
		}
		if r.status != 403 || !strings.Contains(string(r.body), words[c.Gate]) {
			t.Errorf("%s level %d: %d %s, want 403 saying %q", c.Channel, c.Level, r.status, r.body, words[c.Gate])
		}
	}
	e.checkLedger()
}
