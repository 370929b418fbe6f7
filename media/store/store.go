// Package store keeps the content team's files and everything processing makes
// of them in object storage, through gocloud.dev/blob: a folder on one machine
// (fileblob), any S3-compatible store in production (s3blob).
//
// Objects are content-addressed: Put names an object by the lowercase hex
// SHA-256 of its bytes (contract.ObjectKey's rule), so an identical file is
// stored once and a URL that names a key never changes meaning. Scratch
// objects that are not content (upload parts) live under other prefixes, which
// the edge never serves because they are not 64 hex digits.
//
// The edge imports this package: it must stay light (no database driver).
package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned (wrapped) for a key the store does not hold.
var ErrNotFound = errors.New("object not found")

// Store is an object store. It is safe for concurrent use.
type Store struct {
	b   *blob.Bucket
	url string
}

// Open opens the store named by rawURL:
//
//	/abs/dir, rel/dir or file:///abs/dir     a folder (created if missing)
//	s3://bucket?endpoint=http://host:port&region=us-east-1&use_path_style=true
//
// An s3 URL takes every option of gocloud.dev's s3blob (region, endpoint,
// use_path_style, disable_https, ...). Credentials come from the AWS default
// chain (environment, shared config, instance role) unless the URL carries
// them as user info (s3://KEY:SECRET@bucket?...), which is how the test
// command hands its own server's keys to every service without touching the
// process environment.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	if rawURL == "" {
		return nil, errors.New("open object store: empty URL")
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		// A bare path: the folder default of the run command.
		return openDir(rawURL)
	}
	switch u.Scheme {
	case "file":
		return openDir(u.Path)
	case "s3":
		b, err := openS3(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("open object store %s: %w", redact(u), err)
		}
		return &Store{b: b, url: redact(u)}, nil
	default:
		return nil, fmt.Errorf("open object store: unsupported scheme %q (want a folder, file:// or s3://)", u.Scheme)
	}
}

func openDir(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open object store folder %s: %w", dir, err)
	}
	// Temporary files next to the objects: the data folder may be on another
	// mount than /tmp, and a rename across mounts fails.
	b, err := fileblob.OpenBucket(abs, &fileblob.Options{CreateDir: true, NoTempDir: true, DirFileMode: 0o755})
	if err != nil {
		return nil, fmt.Errorf("open object store folder %s: %w", abs, err)
	}
	return &Store{b: b, url: "file://" + abs}, nil
}

// openS3 is s3blob's URL opener plus credentials from the URL's user info.
func openS3(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	if u.Host == "" {
		return nil, errors.New("s3 URL names no bucket")
	}
	q := u.Query()
	var opts []func(*s3.Options)
	for _, key := range []string{"use_path_style", "s3ForcePathStyle"} {
		if v := q.Get(key); v != "" {
			q.Del(key)
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("invalid %s: %w", key, err)
			}
			opts = append(opts, func(o *s3.Options) { o.UsePathStyle = on })
		}
	}
	if v := q.Get("disable_https"); v != "" {
		q.Del("disable_https")
		off, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("invalid disable_https: %w", err)
		}
		opts = append(opts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = off })
	}
	// S3-compatible servers differ in which checksums they accept; asking
	// for them only where S3 requires them works with all of them.
	if q.Get("request_checksum_calculation") == "" {
		q.Set("request_checksum_calculation", "when_required")
	}
	if q.Get("response_checksum_validation") == "" {
		q.Set("response_checksum_validation", "when_required")
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	if u.User != nil {
		secret, _ := u.User.Password()
		cfg.Credentials = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(u.User.Username(), secret, ""))
	}
	client := s3.NewFromConfig(cfg, opts...)
	return s3blob.OpenBucket(ctx, client, u.Host, &s3blob.Options{RequestChecksumCalculation: cfg.RequestChecksumCalculation})
}

// redact drops the secret of a URL for logs and errors.
func redact(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	return c.String()
}

// String is the store's URL without secrets.
func (s *Store) String() string { return s.url }

// Key is the content address of data: the lowercase hex SHA-256.
func Key(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Put stores data under its content address and returns the key. An object
// already there is the same bytes, so it is not written again.
func (s *Store) Put(ctx context.Context, data []byte, contentType string) (string, error) {
	key := Key(data)
	ok, err := s.Exists(ctx, key)
	if err != nil {
		return "", err
	}
	if ok {
		return key, nil
	}
	if err := s.write(ctx, key, data, contentType, "public, max-age=31536000, immutable"); err != nil {
		return "", err
	}
	return key, nil
}

// PutObject stores content under a key the caller derives (a volume's pages,
// named by their version, page, width and format: contract/media.go). The
// key's meaning never changes, so stores and CDNs may keep it forever.
func (s *Store) PutObject(ctx context.Context, key string, data []byte, contentType string) error {
	if !validKey(key) {
		return fmt.Errorf("put object: invalid key %q", key)
	}
	return s.write(ctx, key, data, contentType, "public, max-age=31536000, immutable")
}

// PutAt stores data under a key of the caller's choosing (scratch objects
// such as upload parts, which are not content and are overwritten).
func (s *Store) PutAt(ctx context.Context, key string, data []byte, contentType string) error {
	if !validKey(key) {
		return fmt.Errorf("put object: invalid key %q", key)
	}
	return s.write(ctx, key, data, contentType, "no-store")
}

func (s *Store) write(ctx context.Context, key string, data []byte, contentType, cacheControl string) error {
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	err := s.b.WriteAll(ctx, key, data, &blob.WriterOptions{
		ContentType:  contentType,
		CacheControl: cacheControl,
		// The SHA-256 is the key; MD5 lets the store reject a corrupted body.
		DisableContentTypeDetection: true,
	})
	if err != nil {
		return fmt.Errorf("put object %s: %w", key, err)
	}
	return nil
}

// Get reads a whole object.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("get object %q: %w", key, ErrNotFound)
	}
	data, err := s.b.ReadAll(ctx, key)
	if err != nil {
		return nil, s.wrap("get", key, err)
	}
	return data, nil
}

// Object is an open reader of (part of) an object, with its total size and
// content type for Range and Content-Type answers.
type Object struct {
	r *blob.Reader
}

func (o *Object) Read(p []byte) (int, error) { return o.r.Read(p) }

// Close releases the reader.
func (o *Object) Close() error { return o.r.Close() }

// Size is the whole object's size, whatever range was asked for.
func (o *Object) Size() int64 { return o.r.Size() }

// ContentType is the object's stored Content-Type.
func (o *Object) ContentType() string { return o.r.ContentType() }

// NewRangeReader reads length bytes from offset (length < 0: to the end).
func (s *Store) NewRangeReader(ctx context.Context, key string, offset, length int64) (*Object, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("read object %q: %w", key, ErrNotFound)
	}
	r, err := s.b.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, s.wrap("read", key, err)
	}
	return &Object{r: r}, nil
}

// Size is the size of an object.
func (s *Store) Size(ctx context.Context, key string) (int64, error) {
	if !validKey(key) {
		return 0, fmt.Errorf("stat object %q: %w", key, ErrNotFound)
	}
	a, err := s.b.Attributes(ctx, key)
	if err != nil {
		return 0, s.wrap("stat", key, err)
	}
	return a.Size, nil
}

// Exists reports whether the store holds key.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	if !validKey(key) {
		return false, nil
	}
	ok, err := s.b.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("check object %s: %w", key, err)
	}
	return ok, nil
}

// Delete removes an object; a key already gone is not an error, so removals
// can be retried after a crash.
func (s *Store) Delete(ctx context.Context, key string) error {
	if !validKey(key) {
		return fmt.Errorf("delete object: invalid key %q", key)
	}
	if err := s.b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("delete object %s: %w", key, err)
	}
	return nil
}

// List returns the keys under prefix (scratch clean-up; content keys are
// found through the database, not by listing).
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	it := s.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return keys, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list objects %s: %w", prefix, err)
		}
		if !obj.IsDir {
			keys = append(keys, obj.Key)
		}
	}
}

// Close closes the store's connections.
func (s *Store) Close() error { return s.b.Close() }

func (s *Store) wrap(op, key string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%s object %s: %w", op, key, ErrNotFound)
	}
	return fmt.Errorf("%s object %s: %w", op, key, err)
}

// validKey keeps keys to a safe alphabet: content keys are hex, scratch keys
// are slash-separated names of [a-z0-9._-]. No "..", no leading slash, so a
// key can never leave a folder store's directory.
func validKey(key string) bool {
	if key == "" || len(key) > 512 || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") {
		return false
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return strings.IndexFunc(key, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-' || r == '/')
	}) < 0
}

// IsNotFound reports whether err means the object is missing.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
