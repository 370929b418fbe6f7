package natsutil

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/nats-io/nats.go/jetstream"
)

// SnapshotBucket is the object store holding snapshots of the catalog
// bucket: an edge loads the latest and watches from its revision instead of
// replaying the whole bucket (issue 35).
const SnapshotBucket = "catalog-snapshots"

// SnapshotObject is the name of the one snapshot kept; a new one replaces it.
const SnapshotObject = "latest"

// snapshotFormat is the version of the encoding below; a reader refuses any
// other (and replays the bucket instead).
const snapshotFormat = "1"

// ErrNoSnapshot means there is no usable snapshot: none written yet, or one
// of another format or bucket.
var ErrNoSnapshot = errors.New("no catalog snapshot")

// SnapshotEntry is one record of a snapshot: a key's value at Revision, or
// its delete marker (kept, so that a reader's revision reaches the
// snapshot's even when the newest entry was a delete).
type SnapshotEntry struct {
	Key      string
	Value    []byte
	Revision uint64
	Delete   bool
}

// SnapshotInfo describes a snapshot from its object's metadata.
type SnapshotInfo struct {
	// Revision is the catalog bucket's revision the snapshot holds: every
	// entry up to it, none after.
	Revision uint64
	// Records is how many entries it holds.
	Records int
	// StreamCreated is when the catalog bucket's stream was created: a
	// bucket deleted and created again restarts its revisions, and a
	// snapshot of the old one must not be read against it.
	StreamCreated time.Time
	// Written is when the snapshot was written, Size its compressed bytes.
	Written time.Time
	Size    uint64
}

// EnsureSnapshots opens the snapshot object store, creating it when missing
// (idempotent, like Ensure).
func EnsureSnapshots(ctx context.Context, js jetstream.JetStream, o Options) (jetstream.ObjectStore, error) {
	o = o.withDefaults()
	obs, err := js.ObjectStore(ctx, SnapshotBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		obs, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      SnapshotBucket,
			Description: "snapshots of the catalog bucket at a known revision, for edges to start from",
			Storage:     jetstream.FileStorage,
			Replicas:    o.Replicas,
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			obs, err = js.ObjectStore(ctx, SnapshotBucket)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("ensure object store %s: %w", SnapshotBucket, err)
	}
	return obs, nil
}

// CatalogStreamCreated is when the catalog bucket's stream was created, and
// its last revision.
func CatalogStreamCreated(ctx context.Context, kv jetstream.KeyValue) (time.Time, uint64, error) {
	st, err := kv.Status(ctx)
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("kv %s status: %w", kv.Bucket(), err)
	}
	bs, ok := st.(*jetstream.KeyValueBucketStatus)
	if !ok {
		return time.Time{}, 0, fmt.Errorf("kv %s status: unexpected type %T", kv.Bucket(), st)
	}
	si := bs.StreamInfo()
	return si.Created.UTC(), si.State.LastSeq, nil
}

// WriteSnapshot writes a snapshot of kv into obs. It reads the bucket with
// its own WatchAll up to the watcher's end-of-initial-values marker, so what
// it holds is exactly the bucket at the highest revision it saw (a
// ListKeys-then-Get would mix revisions). Records are written as they
// arrive; a key updated while the bucket is read appears twice, in revision
// order, and a reader applying them in order ends with the newer. Memory is
// the compressed snapshot (about a tenth of the bucket's values), which the
// object store needs whole to put it with its metadata.
func WriteSnapshot(ctx context.Context, kv jetstream.KeyValue, obs jetstream.ObjectStore) (SnapshotInfo, error) {
	created, _, err := CatalogStreamCreated(ctx, kv)
	if err != nil {
		return SnapshotInfo{}, err
	}
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("snapshot: watch %s: %w", kv.Bucket(), err)
	}
	defer w.Stop()
	var buf bytes.Buffer
	enc, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("snapshot: zstd: %w", err)
	}
	info := SnapshotInfo{StreamCreated: created}
	bw := bufio.NewWriterSize(enc, 64<<10)
	var hdr [3 * binary.MaxVarintLen64]byte
read:
	for {
		select {
		case <-ctx.Done():
			enc.Close()
			return SnapshotInfo{}, ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				enc.Close()
				return SnapshotInfo{}, fmt.Errorf("snapshot: watcher of %s closed", kv.Bucket())
			}
			if e == nil {
				break read
			}
			del := e.Operation() != jetstream.KeyValuePut
			h := hdr[:1]
			h[0] = 0
			if del {
				h[0] = 1
			}
			h = binary.AppendUvarint(h, e.Revision())
			h = binary.AppendUvarint(h, uint64(len(e.Key())))
			bw.Write(h)
			bw.WriteString(e.Key())
			if !del {
				bw.Write(binary.AppendUvarint(hdr[:0], uint64(len(e.Value()))))
				bw.Write(e.Value())
			}
			info.Records++
			info.Revision = max(info.Revision, e.Revision())
		}
	}
	if err := bw.Flush(); err != nil {
		enc.Close()
		return SnapshotInfo{}, fmt.Errorf("snapshot: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return SnapshotInfo{}, fmt.Errorf("snapshot: encode: %w", err)
	}
	info.Written = time.Now().UTC()
	oi, err := obs.Put(ctx, jetstream.ObjectMeta{
		Name:        SnapshotObject,
		Description: "catalog bucket snapshot (natsutil/snapshot.go)",
		Metadata: map[string]string{
			"format":         snapshotFormat,
			"bucket":         kv.Bucket(),
			"revision":       strconv.FormatUint(info.Revision, 10),
			"records":        strconv.Itoa(info.Records),
			"stream_created": info.StreamCreated.Format(time.RFC3339Nano),
			"written":        info.Written.Format(time.RFC3339Nano),
		},
	}, &buf)
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("snapshot: put %s/%s: %w", SnapshotBucket, SnapshotObject, err)
	}
	info.Size = oi.Size
	return info, nil
}

// LatestSnapshot describes the latest snapshot of bucket, or ErrNoSnapshot.
func LatestSnapshot(ctx context.Context, obs jetstream.ObjectStore, bucket string) (SnapshotInfo, error) {
	oi, err := obs.GetInfo(ctx, SnapshotObject)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return SnapshotInfo{}, ErrNoSnapshot
	}
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("snapshot info: %w", err)
	}
	md := oi.Metadata
	if md["format"] != snapshotFormat || md["bucket"] != bucket {
		return SnapshotInfo{}, fmt.Errorf("%w: format %q of bucket %q, want format %q of %q", ErrNoSnapshot, md["format"], md["bucket"], snapshotFormat, bucket)
	}
	info := SnapshotInfo{Size: oi.Size}
	var errs []error
	info.Revision, err = strconv.ParseUint(md["revision"], 10, 64)
	errs = append(errs, err)
	info.Records, err = strconv.Atoi(md["records"])
	errs = append(errs, err)
	info.StreamCreated, err = time.Parse(time.RFC3339Nano, md["stream_created"])
	errs = append(errs, err)
	info.Written, err = time.Parse(time.RFC3339Nano, md["written"])
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return SnapshotInfo{}, fmt.Errorf("%w: metadata: %v", ErrNoSnapshot, err)
	}
	return info, nil
}

// ReadSnapshot reads the latest snapshot of kv's bucket and hands its
// records to apply in batches of at most batch, in the order written. The
// snapshot is checked whole before the first apply (the object's digest,
// every record, their count), so a damaged one applies nothing: the caller
// then replays the bucket. A snapshot of another incarnation of the bucket,
// or of a revision the bucket has not reached, is refused the same way.
func ReadSnapshot(ctx context.Context, kv jetstream.KeyValue, obs jetstream.ObjectStore, batch int, apply func([]SnapshotEntry)) (SnapshotInfo, error) {
	info, err := LatestSnapshot(ctx, obs, kv.Bucket())
	if err != nil {
		return SnapshotInfo{}, err
	}
	created, last, err := CatalogStreamCreated(ctx, kv)
	if err != nil {
		return SnapshotInfo{}, err
	}
	if !created.Equal(info.StreamCreated) || info.Revision > last {
		return SnapshotInfo{}, fmt.Errorf("%w: it is of bucket %s created %s up to revision %d; the bucket was created %s and is at %d",
			ErrNoSnapshot, kv.Bucket(), info.StreamCreated, info.Revision, created, last)
	}
	data, err := getObject(ctx, obs, SnapshotObject)
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("snapshot: get: %w", err)
	}
	n, maxRev, err := decodeSnapshot(data, 0, nil)
	if err != nil {
		return SnapshotInfo{}, err
	}
	if n != info.Records || maxRev != info.Revision {
		return SnapshotInfo{}, fmt.Errorf("snapshot: %d records up to revision %d, its metadata says %d up to %d", n, maxRev, info.Records, info.Revision)
	}
	// Decoding the next batch overlaps applying this one: the caller's
	// apply has a serial part (its lock) that leaves a core free.
	batches := make(chan []SnapshotEntry, 2)
	decoded := make(chan error, 1)
	go func() {
		_, _, err := decodeSnapshot(data, batch, func(es []SnapshotEntry) { batches <- es })
		close(batches)
		decoded <- err
	}()
	for es := range batches {
		apply(es)
	}
	if err := <-decoded; err != nil {
		return SnapshotInfo{}, err
	}
	return info, nil
}

// decodeSnapshot decodes data, handing batches to apply when it is not nil,
// and returns the records' count and highest revision.
func decodeSnapshot(data []byte, batch int, apply func([]SnapshotEntry)) (int, uint64, error) {
	dec, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return 0, 0, fmt.Errorf("snapshot: zstd: %w", err)
	}
	defer dec.Close()
	r := bufio.NewReaderSize(dec, 64<<10)
	batch = max(batch, 1)
	var out []SnapshotEntry
	var n int
	var maxRev uint64
	bad := func(what string, err error) (int, uint64, error) {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, 0, fmt.Errorf("snapshot: record %d: %s: %w", n, what, err)
	}
	for {
		op, err := r.ReadByte()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return bad("op", err)
		}
		if op > 1 {
			return bad("op", fmt.Errorf("unknown op %d", op))
		}
		rev, err := binary.ReadUvarint(r)
		if err != nil {
			return bad("revision", err)
		}
		// The checking pass (apply nil) skips the bytes.
		key, err := readChunk(r, 1<<10, apply == nil)
		if err != nil {
			return bad("key", err)
		}
		var val []byte
		if op == 0 {
			if val, err = readChunk(r, 64<<20, apply == nil); err != nil {
				return bad("value", err)
			}
		}
		n++
		maxRev = max(maxRev, rev)
		if apply == nil {
			continue
		}
		out = append(out, SnapshotEntry{Key: string(key), Value: val, Revision: rev, Delete: op == 1})
		if len(out) >= batch {
			apply(out)
			out = out[:0:0] // apply may keep the slice's values
		}
	}
	if apply != nil && len(out) > 0 {
		apply(out)
	}
	return n, maxRev, nil
}

// readChunk reads a uvarint length then that many bytes (at most limit),
// or skips them.
func readChunk(r *bufio.Reader, limit uint64, skip bool) ([]byte, error) {
	l, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if l > limit {
		return nil, fmt.Errorf("length %d over %d", l, limit)
	}
	if skip {
		_, err := r.Discard(int(l))
		return nil, err
	}
	b := make([]byte, l)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// SnapshotLease is the lease key (in contract.LeaseBucket) of the one node
// writing snapshots at a time.
const SnapshotLease = "catalog-snapshot"

// getObject reads an object whole into a buffer of its size: GetBytes
// grows one from nothing, copying and clearing the snapshot's bytes about
// twice over (4% of an edge's start). The object's reader checks its
// SHA-256 digest when it reaches the end.
func getObject(ctx context.Context, obs jetstream.ObjectStore, name string) ([]byte, error) {
	r, err := obs.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	size := uint64(0)
	if oi, err := r.Info(); err == nil {
		size = oi.Size
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(size, 1<<32)+bytes.MinRead))
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
