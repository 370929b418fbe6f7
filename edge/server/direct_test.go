package server

import (
	"bufio"
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// recConn records every Write: what reached the connection, in which calls.
type recConn struct {
	net.Conn
	writes [][]byte
}

func (c *recConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, p)
	return len(p), nil
}

func (c *recConn) wire() []byte { return bytes.Join(c.writes, nil) }

func cachedAnswer(t *testing.T, bodySize int, extra ...string) (*fasthttp.Response, []byte) {
	t.Helper()
	body := bytes.Repeat([]byte("가나다라"), bodySize/12+1)[:bodySize]
	var resp fasthttp.Response
	resp.Header.SetContentType("application/json; charset=utf-8")
	resp.Header.SetContentLength(len(body))
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, ": ")
		resp.Header.Set(k, v)
	}
	return &resp, body
}

// TestDirectBodySendsCacheBytesWithoutCopy: the body reaches the connection
// as the cache's own slice (no copy through the write buffer), right after
// the header, and nothing is left buffered to be sent twice.
func TestDirectBodySendsCacheBytesWithoutCopy(t *testing.T) {
	resp, body := cachedAnswer(t, 20000)
	conn := &recConn{}
	bw := bufio.NewWriterSize(conn, 4096)
	if err := resp.Header.Write(bw); err != nil {
		t.Fatal(err)
	}
	hdr := append([]byte(nil), resp.Header.Header()...)
	d := &directBody{conn: conn, hdr: &resp.Header, body: body}
	n, err := d.WriteTo(bw)
	if err != nil || n != int64(len(body)) {
		t.Fatalf("WriteTo = %d, %v; want %d", n, err, len(body))
	}
	if bw.Buffered() != 0 {
		t.Fatalf("%d bytes left in the write buffer", bw.Buffered())
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := conn.wire(), append(hdr, body...); !bytes.Equal(got, want) {
		t.Fatalf("wire holds %d bytes, want header+body %d", len(got), len(want))
	}
	last := conn.writes[len(conn.writes)-1]
	if len(last) != len(body) || &last[0] != &body[0] {
		t.Fatalf("the body was copied before it reached the connection (writes of %v bytes)", lens(conn.writes))
	}
}

// TestDirectBodyFallsBackWhenBufferHoldsMore: a pipelined answer still
// buffered before this header, or a header larger than the buffer, makes
// WriteTo write through the buffer, keeping every byte and its order.
func TestDirectBodyFallsBackWhenBufferHoldsMore(t *testing.T) {
	for _, c := range []struct {
		name  string
		prev  string   // an answer still buffered before this one
		extra []string // header fields of this answer
	}{
		{"pipelined answer buffered", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", nil},
		{"header larger than the buffer", "", []string{"X-Long: " + strings.Repeat("x", 5000)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := cachedAnswer(t, 9000, c.extra...)
			conn := &recConn{}
			bw := bufio.NewWriterSize(conn, 4096)
			bw.WriteString(c.prev)
			if err := resp.Header.Write(bw); err != nil {
				t.Fatal(err)
			}
			hdr := append([]byte(nil), resp.Header.Header()...)
			d := &directBody{conn: conn, hdr: &resp.Header, body: body}
			if n, err := d.WriteTo(bw); err != nil || n != int64(len(body)) {
				t.Fatalf("WriteTo = %d, %v", n, err)
			}
			bw.Flush()
			want := append(append([]byte(c.prev), hdr...), body...)
			if !bytes.Equal(conn.wire(), want) {
				t.Fatal("bytes on the wire differ from previous answer + header + body")
			}
		})
	}
}

func lens(bs [][]byte) []int {
	out := make([]int, len(bs))
	for i, b := range bs {
		out[i] = len(b)
	}
	return out
}

// TestDirectBodyOverTCP serves large cached bodies to a real client on one
// keep-alive connection: one by one, pipelined (two requests in one write, so
// the second header lands behind the first answer), HEAD, and each encoding.
func TestDirectBodyOverTCP(t *testing.T) {
	big := bytes.Repeat([]byte(`{"k":"웹툰"}`), 3000)
	small := []byte(`{"ok":true}`)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/big":
			setCachedBody(ctx, big)
		default:
			setCachedBody(ctx, small)
		}
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	read := func(method string) []byte {
		t.Helper()
		var resp fasthttp.Response
		if method == "HEAD" {
			resp.SkipBody = true
		}
		if err := resp.Read(br); err != nil {
			t.Fatalf("read answer: %v", err)
		}
		return append([]byte(nil), resp.Body()...)
	}
	req := func(method, path string) string {
		return method + " " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"
	}
	for i := 0; i < 3; i++ {
		c.Write([]byte(req("GET", "/big")))
		if b := read("GET"); !bytes.Equal(b, big) {
			t.Fatalf("answer %d: %d bytes, want %d", i, len(b), len(big))
		}
	}
	c.Write([]byte(req("GET", "/small") + req("GET", "/big") + req("GET", "/big") + req("HEAD", "/big") + req("GET", "/big")))
	for i, want := range [][]byte{small, big, big, nil, big} {
		method := "GET"
		if want == nil {
			method = "HEAD"
		}
		if b := read(method); !bytes.Equal(b, want) {
			t.Fatalf("pipelined answer %d: %d bytes, want %d", i, len(b), len(want))
		}
	}
}
