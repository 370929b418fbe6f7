package natsutil_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"storefront/devstack"
	"storefront/devstack/testenv"
	"storefront/natsutil"
)

// pki is a private CA with a server certificate for 127.0.0.1 and a client
// certificate, all written as PEM files in a folder.
type pki struct {
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
	pool                                             *x509.CertPool
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey := key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "storefront test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage) (cert, keyFile string) {
		k := key()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return write(cn+".pem", "CERTIFICATE", der), write(cn+"-key.pem", "EC PRIVATE KEY", kder)
	}
	p := pki{CA: write("ca.pem", "CERTIFICATE", caDER), pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	p.ServerCert, p.ServerKey = leaf(2, "server", x509.ExtKeyUsageServerAuth)
	p.ClientCert, p.ClientKey = leaf(3, "client", x509.ExtKeyUsageClientAuth)
	return p
}

// startSecured starts an embedded JetStream server that takes only TLS
// connections presenting a client certificate signed by p's CA; auth adds
// the way users prove who they are (nkeys or operator JWTs).
func startSecured(t *testing.T, p pki, auth func(*server.Options)) string {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(p.ServerCert, p.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	port, err := devstack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	opts := &server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true,
		TLS: true, TLSVerify: true, TLSTimeout: 2,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: p.pool, ClientAuth: tls.RequireAndVerifyClientCert,
			MinVersion: tls.VersionTLS12}}
	auth(opts)
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("secured nats not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s.ClientURL()
}

// connected reports whether Connect's connection (which retries in the
// background rather than failing) got through within a few seconds.
func connected(t *testing.T, url string, a natsutil.Auth) (bool, *nats.Conn) {
	t.Helper()
	nc, err := natsutil.Connect(url, a, "test", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	for range 60 {
		if nc.IsConnected() {
			return true, nc
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false, nc
}

// useJetStream makes the stream and bucket over nc and writes a key: what
// every service does first.
func useJetStream(t *testing.T, nc *nats.Conn) {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "probe", []byte("x")); err != nil {
		t.Fatal(err)
	}
}

func TestConnectWithNKeyAndMutualTLS(t *testing.T) {
	p := newPKI(t)
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	seedFile := filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	url := startSecured(t, p, func(o *server.Options) {
		o.Nkeys = []*server.NkeyUser{{Nkey: pub, Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Deny: []string{"forbidden.>"}}}}}
	})
	full := natsutil.Auth{NKeySeed: seedFile, CA: p.CA, Cert: p.ClientCert, Key: p.ClientKey}
	ok, nc := connected(t, url, full)
	if !ok {
		t.Fatalf("nkey + CA + client certificate: not connected (%v)", nc.LastError())
	}
	useJetStream(t, nc)

	// Each missing piece keeps the service out.
	for name, a := range map[string]natsutil.Auth{
		"no nkey":               {CA: p.CA, Cert: p.ClientCert, Key: p.ClientKey},
		"no client certificate": {NKeySeed: seedFile, CA: p.CA},
		"no private CA":         {NKeySeed: seedFile, Cert: p.ClientCert, Key: p.ClientKey},
	} {
		if ok, _ := connected(t, url, a); ok {
			t.Errorf("%s: connected", name)
		}
	}

	// An error the server reports on a connection that stays up reaches the log.
	var logs testenv.LogBuffer
	nc2, err := natsutil.Connect(url, full, "test", slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer nc2.Close()
	if err := nc2.Publish("forbidden.x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	_ = nc2.Flush()
	for range 100 {
		if strings.Contains(logs.String(), "nats async error") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "nats async error") || !strings.Contains(strings.ToLower(logs.String()), "permissions violation") {
		t.Fatalf("permission violation not logged: %q", logs.String())
	}
}

// A .creds file (operator mode: a user JWT signed by its account, with the
// user's nkey seed), over TLS with the private CA and a client certificate.
func TestConnectWithCredsFile(t *testing.T) {
	p := newPKI(t)
	op, _ := nkeys.CreateOperator()
	opPub, _ := op.PublicKey()
	account := func(js bool) (nkeys.KeyPair, string, string) {
		kp, _ := nkeys.CreateAccount()
		pub, _ := kp.PublicKey()
		c := jwt.NewAccountClaims(pub)
		if js {
			c.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
		}
		tok, err := c.Encode(op)
		if err != nil {
			t.Fatal(err)
		}
		return kp, pub, tok
	}
	_, sysPub, sysJWT := account(false)
	acct, acctPub, acctJWT := account(true)
	user, _ := nkeys.CreateUser()
	userPub, _ := user.PublicKey()
	userJWT, err := jwt.NewUserClaims(userPub).Encode(acct)
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := user.Seed()
	creds, err := jwt.FormatUserConfig(userJWT, seed)
	if err != nil {
		t.Fatal(err)
	}
	credsFile := filepath.Join(t.TempDir(), "user.creds")
	if err := os.WriteFile(credsFile, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	url := startSecured(t, p, func(o *server.Options) {
		res := &server.MemAccResolver{}
		_ = res.Store(sysPub, sysJWT)
		_ = res.Store(acctPub, acctJWT)
		o.TrustedOperators = []*jwt.OperatorClaims{jwt.NewOperatorClaims(opPub)}
		o.AccountResolver = res
		o.SystemAccount = sysPub
	})
	ok, nc := connected(t, url, natsutil.Auth{Creds: credsFile, CA: p.CA, Cert: p.ClientCert, Key: p.ClientKey})
	if !ok {
		t.Fatalf(".creds + TLS: not connected (%v)", nc.LastError())
	}
	useJetStream(t, nc)
	if ok, _ := connected(t, url, natsutil.Auth{CA: p.CA, Cert: p.ClientCert, Key: p.ClientKey}); ok {
		t.Fatal("connected without credentials")
	}
}

func TestAuthRefusesHalfASetting(t *testing.T) {
	for name, a := range map[string]natsutil.Auth{
		"creds and nkey":       {Creds: "a.creds", NKeySeed: "a.nk"},
		"cert without key":     {Cert: "c.pem"},
		"missing nkey file":    {NKeySeed: filepath.Join(t.TempDir(), "none.nk")},
		"key without its cert": {Key: "k.pem"},
	} {
		if nc, err := natsutil.Connect("nats://127.0.0.1:1", a, "test", slog.New(slog.DiscardHandler)); err == nil {
			nc.Close()
			t.Errorf("%s: accepted", name)
		}
	}
}
