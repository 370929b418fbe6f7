package contract

import "bytes"

// Tracking events travel in bundles: the edge gathers the events of the calls
// that arrive while its earlier publishes await their acks into one message
// (group commit), because JetStream's cost is per message (store, deliver,
// ack, and a tombstone when the stream drops what analytics acked), not per
// byte. A bundle's body is the events' JSON (TrackedEvent.AppendJSON), one per
// line; JSON as we write it never holds a raw newline, and a message of one
// event is a bundle of one, so every message on EVENTS reads the same way.
const (
	// TrackBundleSubject is the subject of a bundle of tracking events.
	TrackBundleSubject = EventsSubjectPrefix + "bundle.track"
	// HeaderEventRetry marks a message holding events that a page sends again
	// (a call whose answer it never saw). Such events may already be stored
	// under another message, which JetStream's duplicate window cannot see:
	// analytics checks them against what it stored once every earlier message
	// of the stream is done.
	HeaderEventRetry = "Sf-Retry"
)

// AppendEventLine appends ev to a bundle body dst as its next line.
func AppendEventLine(dst []byte, ev *TrackedEvent) ([]byte, error) {
	if len(dst) > 0 {
		dst = append(dst, '\n')
	}
	return ev.AppendJSON(dst)
}

// EachEventLine calls f with every line of a message body that is not empty.
func EachEventLine(body []byte, f func(line []byte)) {
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			f(body)
			return
		}
		if i > 0 {
			f(body[:i])
		}
		body = body[i+1:]
	}
}
