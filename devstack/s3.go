package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3 is an S3-compatible server owned by this process: versitygw with its
// posix backend, which serves the sub-folders of a folder as buckets. It is
// the real S3 protocol (SigV4, multipart, ranges), so storage tests and the
// test command exercise the same client code as production S3.
type S3 struct {
	// Endpoint is http://127.0.0.1:<port>.
	Endpoint  string
	Port      int
	AccessKey string
	SecretKey string
	dir       string
	log       *slog.Logger
	p         *proc
}

// VersityGWVersion is the versitygw that scripts/setup.sh installs into bin/.
const VersityGWVersion = "v1.8.0"

// versitygwCommand finds the versitygw binary: $VERSITYGW_BIN, the project's
// bin/ (where setup installs it), then PATH.
func versitygwCommand() (string, error) {
	if b := os.Getenv("VERSITYGW_BIN"); b != "" {
		return b, nil
	}
	if root, err := moduleRoot(); err == nil {
		if p := filepath.Join(root, "bin", "versitygw"); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("no versitygw found (scripts/setup.sh installs it into bin/; or set VERSITYGW_BIN)")
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// moduleRoot is the folder of the go.mod above the working directory (tests
// run in their package's folder, the launcher in the repository).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// StartS3 starts versitygw on 127.0.0.1:port serving the buckets under dir
// (created if missing; data persists across restarts), with root keys
// accessKey/secretKey.
func StartS3(ctx context.Context, dir string, port int, accessKey, secretKey string, log *slog.Logger) (*S3, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"buckets", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("create s3 dir: %w", err)
		}
	}
	s := &S3{
		Endpoint:  "http://127.0.0.1:" + strconv.Itoa(port),
		Port:      port,
		AccessKey: accessKey,
		SecretKey: secretKey,
		dir:       dir,
		log:       log,
	}
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Start (re)starts the server after Stop, on the same port and folder.
func (s *S3) Start(ctx context.Context) error {
	bin, err := versitygwCommand()
	if err != nil {
		return err
	}
	p, err := startProc("versitygw", s.log, nil, filepath.Join(s.dir, "log", "versitygw.log"),
		bin, "--port", "127.0.0.1:"+strconv.Itoa(s.Port), "--access", s.AccessKey, "--secret", s.SecretKey,
		"--region", "us-east-1", "--quiet", "posix", filepath.Join(s.dir, "buckets"))
	if err != nil {
		return err
	}
	err = waitFor(ctx, p, 30*time.Second, func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(s.Port))
		if err != nil {
			return err
		}
		return c.Close()
	})
	if err != nil {
		_ = p.stop(syscall.SIGKILL, time.Second)
		return fmt.Errorf("start versitygw on port %d (log in %s/log): %w", s.Port, s.dir, err)
	}
	s.p = p
	s.log.Info("s3 (versitygw) ready", "endpoint", s.Endpoint, "dir", s.dir)
	return nil
}

// Stop shuts the server down.
func (s *S3) Stop() error {
	if s.p == nil {
		return nil
	}
	return s.p.stop(syscall.SIGTERM, 10*time.Second)
}

func (s *S3) client() *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
}

// CreateBucket creates bucket (an existing one of ours is fine) and returns
// the media/store URL of it, keys included.
func (s *S3) CreateBucket(ctx context.Context, bucket string) (string, error) {
	_, err := s.client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	if err != nil {
		var owned interface{ ErrorCode() string }
		if !errors.As(err, &owned) || (owned.ErrorCode() != "BucketAlreadyOwnedByYou" && owned.ErrorCode() != "BucketAlreadyExists") {
			return "", fmt.Errorf("create bucket %s: %w", bucket, err)
		}
	}
	return s.BucketURL(bucket), nil
}

// BucketURL is the media/store URL of bucket on this server.
func (s *S3) BucketURL(bucket string) string {
	u := url.URL{
		Scheme:   "s3",
		User:     url.UserPassword(s.AccessKey, s.SecretKey),
		Host:     bucket,
		RawQuery: url.Values{"endpoint": {s.Endpoint}, "region": {"us-east-1"}, "use_path_style": {"true"}}.Encode(),
	}
	return u.String()
}
