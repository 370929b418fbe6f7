package contract

import "strings"

// Money names of the ledger, the business events and the wallet answer's
// shownMoney.
const (
	MoneyBlue    = "blue"
	MoneyAndroid = "android"
	MoneyIOS     = "ios"
)

// MoneyFor is the money shown and spent on a channel (seed §6): the iOS app
// uses iOS money, the Android apps (AA, AC, AO) Android money, everything else
// blue money. The frontend shows what the writer's answer names (shownMoney)
// and checks its own copy of the rule against cases/money-by-channel.json, the
// table this function is tested with, so the two tiers cannot drift.
func MoneyFor(channel string) string {
	switch strings.ToUpper(channel) {
	case "IA":
		return MoneyIOS
	case "AA", "AC", "AO":
		return MoneyAndroid
	}
	return MoneyBlue
}

// BonusBanners reports whether the join-bonus and first-charge banners may
// show on a channel: never in the iOS app (seed §6).
func BonusBanners(channel string) bool {
	return !strings.EqualFold(channel, "IA")
}

// FirstChargeBonusPct is the first-charge bonus, in percent of the amount
// charged, that the writer grants unless configured otherwise; the demo
// catalog's event text states this number, and the charge page shows the
// bonus from the writer's answer (firstChargeBonusPct), so what is promised
// and what is paid are one number.
const FirstChargeBonusPct = 10

// JoinBonusMileage is the mileage the writer grants once after sign-up unless
// configured otherwise; the demo's join event states this amount, so the
// promise and the grant are one number.
const JoinBonusMileage = 3000

// FirstChargeBonus is the mileage granted on a first charge of amount won at
// pct percent (rounded down, as the ledger holds whole won).
func FirstChargeBonus(amount, pct int64) int64 {
	return amount * pct / 100
}
