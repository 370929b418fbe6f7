// Command benchserve starts what edge/bench/wrk.sh compares: an edge over an
// embedded NATS holding the demo catalog (-mode edge), or a bare fasthttp
// server answering every request with the bytes of one file (-mode bare).
// It prints the listening URL on stdout and runs until interrupted.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/demo"
	"storefront/devsecrets"
	"storefront/devstack"
	"storefront/edge/server"
	"storefront/natsutil"
	"storefront/svc"
)

func main() {
	mode := flag.String("mode", "edge", "edge, bare, or cookie (print a logged-in reader's Cookie header for the edge's dev secret)")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	file := flag.String("file", "", "bare: the body to answer with")
	encoding := flag.String("encoding", "", "bare: the Content-Encoding of -file (gzip), none by default")
	works := flag.Int("works", 3000, "edge: demo catalog size")
	flag.Parse()
	ctx, cancel := svc.SignalContext()
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var err error
	switch *mode {
	case "cookie":
		fmt.Println(readerCookie(time.Now()))
		return
	case "bare":
		err = bare(ctx, *addr, *file, *encoding)
	default:
		err = edge(ctx, *addr, *works, log)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchserve:", err)
		os.Exit(1)
	}
}

// bare answers like the edge does (same body, content type, encoding and a
// signature header of the same length), with nothing else to do.
func bare(ctx context.Context, addr, file, encoding string) error {
	body, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	sig := []byte(contract.Signature(200, "", body))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &fasthttp.Server{NoDefaultServerHeader: true, Handler: func(c *fasthttp.RequestCtx) {
		c.Response.Header.SetContentType("application/json; charset=utf-8")
		c.Response.Header.Set("Cache-Control", "no-store")
		c.Response.Header.SetBytesV(contract.HeaderSignature, sig)
		if encoding != "" {
			c.Response.Header.Set("Content-Encoding", encoding)
		}
		c.Response.SetBodyRaw(body)
	}}
	fmt.Printf("http://%s\n", ln.Addr())
	go func() { <-ctx.Done(); srv.Shutdown() }()
	return srv.Serve(ln)
}

// readerCookie is the Cookie header of a logged-in reader as the writer sets
// it at login (session, browser id, member, adult mode) with an audience
// token the edge accepts (its development secret): the edge checks that
// token on every read.
func readerCookie(now time.Time) string {
	aud := contract.SignAudience([]byte(devsecrets.AudienceSecret), contract.Audience{AdultLevel: 2, Expires: now.Add(24 * time.Hour)})
	return "sf_session=Jd9qk3VbX0uLr2mYtP8wNcE5hA1sGz7oKfQiUy4TvWe; sf_bid=b-6f1c2e9a4d; " +
		"sf_member=uid%3D41%26loginType%3Demail%2619Toggle%3DOFF; sf_adult=Y; " + contract.AudienceCookie + "=" + aud
}

func edge(ctx context.Context, addr string, works int, log *slog.Logger) error {
	dir, err := os.MkdirTemp("", "benchserve-nats-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	port, err := devstack.FreePort()
	if err != nil {
		return err
	}
	n, err := devstack.StartNATS(dir, port)
	if err != nil {
		return err
	}
	defer n.Stop()
	nc, err := nats.Connect(n.URL)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if _, err := natsutil.Ensure(ctx, js, natsutil.Options{}); err != nil {
		return err
	}
	now := time.Now()
	cat := demo.Generate(demo.Options{Seed: 1, Works: works, Now: now})
	// As the writer publishes a work: its volume pages, then its head
	// (contract.SplitVolumes); pages are acknowledged before any head goes.
	for i := range cat.Products {
		head, pages := contract.SplitVolumes(&cat.Products[i], now)
		for j := range pages {
			v, _ := json.Marshal(&pages[j])
			if _, err := js.PublishAsync(contract.KVSubject(contract.VolumePageKey(head.PID, pages[j].Index)), v); err != nil {
				return err
			}
		}
		if i%1000 == 999 {
			<-js.PublishAsyncComplete()
		}
	}
	<-js.PublishAsyncComplete()
	for i := range cat.Products {
		head, _ := contract.SplitVolumes(&cat.Products[i], now)
		v, _ := json.Marshal(&head)
		if i%1000 == 0 {
			<-js.PublishAsyncComplete()
		}
		if _, err := js.PublishAsync(contract.KVSubject(contract.ProductKey(head.PID)), v); err != nil {
			return err
		}
	}
	<-js.PublishAsyncComplete()
	s, err := server.New(ctx, server.Config{Addr: addr, NATSURL: n.URL, StaticDir: dir + "/none"}, log)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", s.Addr())
	return s.Run(ctx)
}
