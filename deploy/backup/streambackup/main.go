// Command streambackup backs up and restores the store's JetStream streams
// online, with JetStream's own snapshots (the format of `nats stream backup`
// and `nats stream restore`): the EVENTS stream with the analytics consumer's
// position, the catalog KV bucket (stream KV_catalog) and its bucket of
// volume pages (KV_catalog-vols; absent from a store or backup of before
// paged volumes, and then skipped), and the episode comments' heads and
// pages (KV_catalog-cmts; absent before comments, skipped the same way).
// One folder per stream under the backup folder.
//
//	streambackup -nats-url nats://... backup  /backups/nats/2026-11-25
//	streambackup -nats-url nats://... restore /backups/nats/2026-11-25
//
// NATS credentials, nkey, private CA and client certificate as for the
// services (-nats-creds ... or NATS_CREDS ...).
//
// A restore needs the streams absent (a fresh cluster, or deleted first):
// JetStream refuses to restore over a stream of the same name.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/jsm.go"

	"storefront/contract"
	"storefront/natsutil"
	"storefront/svc"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "streambackup:", err)
		os.Exit(1)
	}
}

// streams are what the store keeps in JetStream: the events not yet in
// ClickHouse (and the consumer's place in them), and the read models: the
// catalog's heads and their volume pages (contract/volumes.go), which a
// head names by hash, so the two are backed up and restored together; and
// the episodes' comment documents (contract/comments.go), so a restored
// store shows its comments before the writer next republishes them.
var streams = []string{contract.EventsStream, "KV_" + contract.CatalogBucket, "KV_" + contract.VolumesBucket,
	"KV_" + contract.CommentsBucket}

// optional streams may be missing: the volume pages of a store not yet
// moved to paged volumes (CatalogSchema 1), the comments of a store of
// before episode comments, and so of their backups.
var optional = map[string]bool{"KV_" + contract.VolumesBucket: true, "KV_" + contract.CommentsBucket: true}

func run(args []string) error {
	fs := flag.NewFlagSet("streambackup", flag.ContinueOnError)
	url := fs.String("nats-url", contract.DefaultNATSURL, "NATS servers (env NATS_URL)")
	var auth natsutil.Auth
	auth.RegisterFlags(fs)
	timeout := fs.Duration("timeout", 30*time.Minute, "for the whole backup or restore")
	if err := svc.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 || (fs.Arg(0) != "backup" && fs.Arg(0) != "restore") {
		return errors.New("usage: streambackup [-nats-url URL] backup|restore DIR")
	}
	dir := fs.Arg(1)
	nc, err := natsutil.Connect(*url, auth, "streambackup", svc.NewLogger("text", "warn"))
	if err != nil {
		return err
	}
	defer nc.Close()
	mgr, err := jsm.New(nc, jsm.WithTimeout(10*time.Second))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	for _, name := range streams {
		at := filepath.Join(dir, name)
		if fs.Arg(0) == "backup" {
			st, err := mgr.LoadStream(name)
			if optional[name] && jsm.IsNatsError(err, 10059) { // stream not found
				fmt.Printf("%s: none (a store of inline volumes)\n", name)
				continue
			}
			if err != nil {
				return fmt.Errorf("cannot load stream %s: %w", name, err)
			}
			opts := []jsm.SnapshotOption{jsm.SnapshotHealthCheck()}
			if name == contract.EventsStream {
				// With its consumer: analytics resumes where it was, so events
				// already in ClickHouse are not delivered again. (The bucket's
				// consumers are the edges' watches, of no use restored.)
				opts = append(opts, jsm.SnapshotConsumers())
			}
			p, err := st.SnapshotToDirectory(ctx, at, opts...)
			if err != nil {
				return fmt.Errorf("cannot snapshot stream %s: %w", name, err)
			}
			fmt.Printf("%s: %d bytes in %s\n", name, p.BytesReceived(), at)
			continue
		}
		if _, err := os.Stat(at); optional[name] && errors.Is(err, os.ErrNotExist) {
			fmt.Printf("%s: not in the backup (taken before paged volumes); the writer republishes\n", name)
			continue
		}
		_, state, err := mgr.RestoreSnapshotFromDirectory(ctx, name, at)
		if err != nil {
			return fmt.Errorf("cannot restore stream %s from %s: %w", name, at, err)
		}
		fmt.Printf("%s: restored %d messages, %d consumers\n", name, state.Msgs, state.Consumers)
	}
	return nil
}
