package demo_test

import (
	"strconv"
	"strings"
	"testing"

	"storefront/contract"
	"storefront/demo"
)

// TestFirstChargePromiseIsWhatTheWriterPays: the first-charge event and its
// notice promise contract.FirstChargeBonusPct, the writer's default bonus
// (issue 24: they promised 50% while 10% was paid).
func TestFirstChargePromiseIsWhatTheWriterPays(t *testing.T) {
	t.Parallel()
	cat := demo.Generate(demo.Options{Seed: 42, Works: 200, Now: anchor})
	want := "충전 금액의 " + strconv.Itoa(contract.FirstChargeBonusPct) + "%를"
	found := 0
	for _, e := range cat.Events {
		if e.Kind == contract.EventFirstCharge {
			found++
			if !strings.Contains(e.Body, want) {
				t.Errorf("event %d promises %q, the writer pays %d%%", e.EID, e.Body, contract.FirstChargeBonusPct)
			}
		}
	}
	for _, n := range cat.Notices {
		if strings.Contains(n.Body, "첫 충전") && !strings.Contains(n.Body, want) {
			t.Errorf("notice %q promises %q", n.Title, n.Body)
		}
	}
	if found == 0 {
		t.Fatal("no first-charge event")
	}
}

// TestJoinPromiseIsWhatTheWriterPays: the join event promises
// contract.JoinBonusMileage, the writer's default join bonus (it promised
// 블루머니 1,000원 while 3,000 mileage was paid).
func TestJoinPromiseIsWhatTheWriterPays(t *testing.T) {
	t.Parallel()
	cat := demo.Generate(demo.Options{Seed: 42, Works: 200, Now: anchor})
	want := "마일리지 3,000원"
	if contract.JoinBonusMileage != 3000 {
		t.Fatalf("update this test's text for a join bonus of %d", contract.JoinBonusMileage)
	}
	found := 0
	for _, e := range cat.Events {
		if e.Kind == contract.EventJoin {
			found++
			if !strings.Contains(e.Body, want) {
				t.Errorf("event %d promises %q, the writer pays %s", e.EID, e.Body, want)
			}
		}
	}
	if found == 0 {
		t.Fatal("no join event")
	}
}
