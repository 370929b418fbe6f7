package contract

// DecodeEventFast exposes the hand-written path, so tests can tell it served
// an input instead of encoding/json.
var DecodeEventFast = decodeEventFast
