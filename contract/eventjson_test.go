package contract_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"storefront/contract"
)

// sampleEvent is what an edge publishes for a page view with a query string.
func sampleEvent() contract.TrackedEvent {
	return contract.TrackedEvent{V: 1, ID: "0190f2a4-7b1c-7d3e-8f00-123456789abc", Type: contract.EvPageView,
		Time:    time.Date(2026, 11, 20, 14, 0, 0, 123456789, time.UTC),
		Channel: "AW", AppVersion: "6.1.0", IPHash: "3f1a9c0e4b2d", UAClass: "android-web", SessionID: "s-7f3e",
		UID: "42", MemberType: "member", URL: "https://page.example/webtoon/genre/21?sort=popular&page=2",
		Referrer: "https://search.example/?q=<귀멸>", PID: "P1234", Section: "WT", GenreID: "21", Vol: 3, Amount: -300,
		Money: "blue", Props: map[string]string{"b": "2", "a": "1\n", "쿠폰": "\u2028"}}
}

func TestEventJSONIsEncodingJSON(t *testing.T) {
	events := []contract.TrackedEvent{
		sampleEvent(),
		{V: 1, ID: "x", Type: "t", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", 9*3600))},
		{V: 1, ID: "bad \xff utf8", Type: "t", Time: time.Unix(0, 1), Props: map[string]string{}},
	}
	for _, ev := range events {
		want, err := json.Marshal(&ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.AppendJSON(nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON:\n got %s (%v)\nwant %s", got, err, want)
		}
		var back contract.TrackedEvent
		if err := contract.DecodeEvent(want, &back); err != nil {
			t.Fatal(err)
		}
		var std contract.TrackedEvent
		_ = json.Unmarshal(want, &std)
		if !reflect.DeepEqual(back, std) {
			t.Fatalf("DecodeEvent:\n got %+v\nwant %+v", back, std)
		}
	}
	// A time JSON cannot carry is refused with json.Marshal's error.
	far := contract.TrackedEvent{V: 1, ID: "x", Type: "t", Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	_, want := json.Marshal(&far)
	if _, err := far.AppendJSON(nil); err == nil || err.Error() != want.Error() {
		t.Fatalf("year 10000: got %v, want %v", err, want)
	}
}

// TestEventJSONFastPath: what edges publish (escapes, Korean text, props)
// is decoded by hand, with a handful of allocations instead of one per field.
func TestEventJSONFastPath(t *testing.T) {
	ev := sampleEvent()
	data, err := ev.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got contract.TrackedEvent
	if !contract.DecodeEventFast(data, &got) {
		t.Fatalf("the fast path refused %s", data)
	}
	ev.Props = nil
	data, _ = ev.AppendJSON(nil)
	allocs := testing.AllocsPerRun(100, func() {
		var e contract.TrackedEvent
		_ = contract.DecodeEvent(data, &e)
	})
	// The whole message as one string, the URL and the referrer unescaped.
	if allocs > 4 {
		t.Fatalf("DecodeEvent allocates %.0f times per event, want at most 4", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { _, _ = ev.AppendJSON(data[:0]) }); allocs != 0 {
		t.Fatalf("AppendJSON into a large enough buffer allocates %.0f times", allocs)
	}
}

// TestEventJSONCoversEveryField: every field of TrackedEvent, set on its own,
// is written as encoding/json writes it and read back by the fast path. A
// field added to the struct but not to the codec fails here.
func TestEventJSONCoversEveryField(t *testing.T) {
	typ := reflect.TypeOf(contract.TrackedEvent{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		ev := contract.TrackedEvent{V: 1, ID: "id", Type: "t", Time: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
		v := reflect.ValueOf(&ev).Elem().Field(i)
		switch {
		case f.Type == reflect.TypeOf(time.Time{}):
			v.Set(reflect.ValueOf(time.Date(2027, 1, 2, 3, 4, 5, 6, time.UTC)))
		case v.Kind() == reflect.String:
			v.SetString("값 " + f.Name)
		case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
			v.SetInt(7)
		case v.Kind() == reflect.Map:
			v.Set(reflect.ValueOf(map[string]string{"k": "v"}))
		default:
			t.Fatalf("field %s of kind %s: teach the codec and this test about it", f.Name, v.Kind())
		}
		want, _ := json.Marshal(&ev)
		got, err := ev.AppendJSON(nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("field %s: AppendJSON wrote %s, encoding/json %s", f.Name, got, want)
		}
		var back contract.TrackedEvent
		if !contract.DecodeEventFast(want, &back) || !reflect.DeepEqual(back, ev) {
			t.Fatalf("field %s: the fast path did not read %s back (%+v)", f.Name, want, back)
		}
	}
}

// TestDecodeEventLeavesTheOddToEncodingJSON: inputs outside the hand-written
// path decode exactly as encoding/json decodes them, errors included.
func TestDecodeEventLeavesTheOddToEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"v":1,"ID":"upper","type":"t","ts":"2026-11-20T12:00:00Z"}`,
		`{"v":1,"id":"a","id":"b","type":"t","ts":"2026-11-20T12:00:00Z"}`,
		`{"v":1,"id":"a","type":"t","ts":"2026-11-20T12:00:00Z","props":{"a":"1"},"props":{"b":"2"}}`,
		`{"v":1,"id":null,"type":"t","ts":"2026-11-20T12:00:00Z","extra":[1,{"x":null}]}`,
		`{"v":1.0,"id":"a","type":"t","ts":"2026-11-20T12:00:00Z"}`,
		`{"v":1e0,"id":"a","type":"t","ts":"2026-11-20T12:00:00Z"}`,
		`{"v":01,"id":"a"}`,
		`{"v":99999999999999999999}`,
		`{"v":"1","id":"a","type":"t","ts":"2026-11-20T12:00:00Z","uid":"7"}`,
		`{"v":1,"id":"a\u0026b","type":"t","ts":"2026-11-20T12:00:00Z","url":"/x?a=1\u0026b=2"}`,
		`{"v":1,"id":"a","type":"t","ts":"2026-11-20T12:00:00+09:00"} x`,
		`{"v":1,"id":"a","type":"t","ts":"2026-13-20T12:00:00Z"}`,
		`{"v":1,"id":"a","type":"t","ts":null}`,
		`{"v":1,"id":"a` + "\x01" + `"}`,
		`{"props":{"k":null}}`,
		`null`,
		`[]`,
		` { } `,
		`{`,
		``,
	} {
		var got, want contract.TrackedEvent
		gotErr := contract.DecodeEvent([]byte(in), &got)
		wantErr := json.Unmarshal([]byte(in), &want)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%s: error %v, encoding/json %v", in, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", in, got, want)
		}
	}
}

// FuzzEventJSONMatchesEncodingJSON: DecodeEvent gives exactly what
// json.Unmarshal gives for any input (value and error), and AppendJSON
// writes exactly json.Marshal's bytes for any event.
func FuzzEventJSONMatchesEncodingJSON(f *testing.F) {
	b, _ := json.Marshal(sampleEvent())
	f.Add(b, "", "", int64(0), int64(0))
	f.Add([]byte(`{"v":1,"id":"a","type":"t","ts":"2026-11-20T12:00:00.5-07:00","vol":-0,"amount":9223372036854775807}`), "a<b", "\xffx", int64(-1), int64(1<<40))
	f.Add([]byte(`{"v":1,"id":"a","type":"t","ts":"2026-11-20T12:00:00Z","props":{"\u00e9":"\"q\"","":""}}`), "\u2029", "\t", int64(3), int64(-5))
	f.Add([]byte(`{"props":{}, "v" : 1 ,"uid":"\ud800"}`), "", "&", int64(1e18), int64(7))
	f.Add([]byte(`{"v":1,"id":"\ud83d\ude00\u00E9\/\b\f","type":"t","ts":"2026-11-20T12:00:00Z","props":{"\ud800\u0041":"\ud83dx"}}`), "😀", "\x7f", int64(0), int64(0))
	f.Fuzz(func(t *testing.T, in []byte, s1, s2 string, n1, n2 int64) {
		var got, want contract.TrackedEvent
		gotErr := contract.DecodeEvent(in, &got)
		wantErr := json.Unmarshal(in, &want)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, encoding/json %v", in, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", in, got, want)
		}

		ev := sampleEvent()
		ev.V, ev.Vol, ev.Amount = int(n1), int(n2), n1^n2
		ev.ID, ev.URL, ev.UID, ev.Route = s1, s2, s1+s2, strings.Repeat(s2, 2)
		ev.Time = time.Unix(n1%(1<<36), n2%1e9).In(time.FixedZone("", int(n2%(14*3600))))
		ev.Props = map[string]string{s1: s2, s2: s1}
		if n1%3 == 0 {
			ev.Props = nil
		}
		wantB, wantErr := json.Marshal(&ev)
		gotB, gotErr := ev.AppendJSON(nil)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("encode %+v: error %v, encoding/json %v", ev, gotErr, wantErr)
		}
		if gotErr == nil && !bytes.Equal(gotB, wantB) {
			t.Fatalf("encode:\n got %s\nwant %s", gotB, wantB)
		}
	})
}

func BenchmarkEventJSON(b *testing.B) {
	ev := sampleEvent()
	ev.Props = nil
	data, _ := json.Marshal(&ev)
	b.Run("decode/encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var e contract.TrackedEvent
			if err := json.Unmarshal(data, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/DecodeEvent", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var e contract.TrackedEvent
			if err := contract.DecodeEvent(data, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			if _, err := ev.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
