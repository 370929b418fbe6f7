package member_test

import (
	"strings"
	"testing"

	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
)

// TestAdultAlarmByAudience (issue 30): the alarm of an adult work cannot be
// turned on (set or toggled) by a member who may not see adult works (never
// verified, a minor, an adult with the 19 toggle off, an adult in a store
// app): 403 in Korean saying what would open it, and nothing stored. An adult
// on the web may; once their level drops they can still turn it off. A work
// for everyone takes anyone's alarm.
func TestAdultAlarmByAudience(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "A1", "WT", 19)
	addWork(t, e, "W1", "WT", 0)
	setLevel := func(m member, set string) {
		t.Helper()
		if _, err := e.Pool.Exec(t.Context(), `UPDATE users SET `+set+` WHERE uid = $1::bigint`, m.uid); err != nil {
			t.Fatal(err)
		}
	}
	const (
		adult      = `auth_real = true, auth_adult = true, toggle19 = true, birth_date = date '1990-01-01'`
		toggledOff = `auth_real = true, auth_adult = true, toggle19 = false, birth_date = date '1990-01-01'`
		minor      = `auth_real = true, auth_adult = false, birth_date = (now() - interval '15 years')::date`
	)
	unverified := newMember(t, e, "alarm-unverified@example.com")
	teen := newMember(t, e, "alarm-teen@example.com")
	setLevel(teen, minor)
	off := newMember(t, e, "alarm-off@example.com")
	setLevel(off, toggledOff)
	inApp := newMember(t, e, "alarm-app@example.com")
	setLevel(inApp, adult)
	grown := newMember(t, e, "alarm-adult@example.com")
	setLevel(grown, adult)

	before := testenv.TableFingerprint(t, t.Context(), e.Pool, "alarms", "push_subscriptions")
	for _, c := range []struct {
		who     string
		m       member
		channel string
		want    string
	}{
		{"never verified", unverified, "", "성인 인증"},
		{"minor", teen, "", "19세 미만"},
		{"19 toggle off", off, "", "성인 작품 보기(19)"},
		{"adult in the Play Store app", inApp, "AA", "이 앱에서는"},
	} {
		c.m.Headers = map[string]string{}
		if c.channel != "" {
			c.m.Headers["X-Channel"] = c.channel
		}
		for _, f := range []writertest.Form{form("uid", c.m.uid, "pid", "A1", "isAlarm", "Y"), form("uid", c.m.uid, "pid", "A1"),
			form("uid", c.m.uid, "pid", "A1", "alarm", "on", "channel", "AW")} {
			st, body := c.m.Do("POST", zz+"alarm-set", f)
			if st != 403 || writertest.Code(t, body) != 403 || !strings.Contains(writertest.Message(t, body), c.want) {
				t.Errorf("%s: alarm of an adult work: %d %s, want 403 saying %q", c.who, st, body, c.want)
			}
		}
		c.m.Headers = nil
	}
	if after := testenv.TableFingerprint(t, t.Context(), e.Pool, "alarms", "push_subscriptions"); after != before {
		t.Fatal("a refused alarm changed the tables")
	}
	// A work for everyone: a minor's alarm is fine.
	if st, body := teen.Do("POST", zz+"alarm-set", form("uid", teen.uid, "pid", "W1", "isAlarm", "Y")); st != 200 {
		t.Fatalf("minor's alarm of a work for everyone: %d %s", st, body)
	}
	// An adult on the web turns it on; after the toggle goes off, off stays open.
	if st, body := grown.Do("POST", zz+"alarm-set", form("uid", grown.uid, "pid", "A1", "isAlarm", "Y")); st != 200 || !strings.Contains(string(body), `"isAlarm":true`) {
		t.Fatalf("adult's alarm: %d %s", st, body)
	}
	setLevel(grown, toggledOff)
	if st, body := grown.Do("POST", zz+"alarm-set", form("uid", grown.uid, "pid", "A1")); st != 200 || !strings.Contains(string(body), `"isAlarm":false`) {
		t.Fatalf("toggling off after the level dropped: %d %s", st, body)
	}
	if st, _ := grown.Do("POST", zz+"alarm-set", form("uid", grown.uid, "pid", "A1")); st != 403 {
		t.Fatalf("toggling back on with the 19 toggle off: %d, want 403", st)
	}
	if st, body := grown.Do("POST", zz+"alarm-set", form("uid", grown.uid, "pid", "A1", "isAlarm", "N")); st != 200 {
		t.Fatalf("turning off: %d %s", st, body)
	}
}
