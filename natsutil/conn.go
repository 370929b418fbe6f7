package natsutil

import (
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// Auth is how a service proves itself to a secured NATS cluster and checks
// the servers: at most one of a credentials file (JWT and nkey seed, from
// nsc or an account server) or an nkey seed file, and TLS with a private CA
// and, for mutual TLS, a client certificate. The zero value is a plain,
// unauthenticated connection (one machine).
type Auth struct {
	Creds    string // NATS_CREDS: a .creds file
	NKeySeed string // NATS_NKEY: a file holding a user nkey seed (SU...)
	CA       string // NATS_CA: PEM file of the CA that signed the servers' certificates
	Cert     string // NATS_CERT: client certificate (PEM) for mutual TLS
	Key      string // NATS_KEY: its private key (PEM)
}

// RegisterFlags registers -nats-creds, -nats-nkey, -nats-ca, -nats-cert and
// -nats-key with their environment variables (applied by svc.Parse).
func (a *Auth) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&a.Creds, "nats-creds", "", "NATS credentials file (.creds: user JWT and nkey seed) (env NATS_CREDS)")
	fs.StringVar(&a.NKeySeed, "nats-nkey", "", "file holding the NATS user's nkey seed (env NATS_NKEY)")
	fs.StringVar(&a.CA, "nats-ca", "", "PEM file of the private CA that signed the NATS servers' certificates (env NATS_CA)")
	fs.StringVar(&a.Cert, "nats-cert", "", "client certificate (PEM) for NATS mutual TLS, with -nats-key (env NATS_CERT)")
	fs.StringVar(&a.Key, "nats-key", "", "private key (PEM) of -nats-cert (env NATS_KEY)")
}

func (a Auth) options() ([]nats.Option, error) {
	var opts []nats.Option
	switch {
	case a.Creds != "" && a.NKeySeed != "":
		return nil, fmt.Errorf("nats credentials: give a .creds file or an nkey seed, not both")
	case a.Creds != "":
		opts = append(opts, nats.UserCredentials(a.Creds))
	case a.NKeySeed != "":
		o, err := nats.NkeyOptionFromSeed(a.NKeySeed)
		if err != nil {
			return nil, fmt.Errorf("nats nkey seed %s: %w", a.NKeySeed, err)
		}
		opts = append(opts, o)
	}
	if a.CA != "" {
		opts = append(opts, nats.RootCAs(a.CA))
	}
	if (a.Cert == "") != (a.Key == "") {
		return nil, fmt.Errorf("nats client certificate: give both -nats-cert and -nats-key")
	}
	if a.Cert != "" {
		opts = append(opts, nats.ClientCert(a.Cert, a.Key))
	}
	return opts, nil
}

// Connect dials NATS (url: one or more servers, comma-separated) with
// reconnects forever, logging state changes and the asynchronous errors the
// server reports on a connection that stays up (a permission refused, a slow
// consumer, a JetStream consumer gone): those reach no caller otherwise.
func Connect(url string, auth Auth, name string, log *slog.Logger) (*nats.Conn, error) {
	opts, err := auth.options()
	if err != nil {
		return nil, err
	}
	opts = append(opts,
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.RetryOnFailedConnect(true),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			log.Warn("nats disconnected", "err", err)
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("nats reconnected", "url", c.ConnectedUrl())
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if sub != nil {
				log.Error("nats async error", "subject", sub.Subject, "err", err)
				return
			}
			log.Error("nats async error", "err", err)
		}),
	)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect nats %s: %w", url, err)
	}
	return nc, nil
}
