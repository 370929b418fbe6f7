// Package contract holds what the edge, writer and analytics services agree on:
// the names of JetStream buckets, streams and subjects, the read-model documents
// the writer puts into the catalog KV bucket and the edge serves, the tracking and
// business event schema, the response envelope and the response signature.
//
// It imports nothing of the project and no driver: the edge links it, and the edge
// must never link pgx or clickhouse-go. Changing a JSON field here is a change of
// wire format between services; add fields, do not rename them. A field added to
// TrackedEvent goes into its hand-written codec too (eventjson.go);
// TestEventJSONCoversEveryField fails until it does.
package contract
