package server_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers/legacy"

	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

// TestMediaAnswersMatchOpenAPI drives every media route (writer/media)
// through the checker, so their requests and answers, refusals included,
// are what docs/openapi.yaml says.
func TestMediaAnswersMatchOpenAPI(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	e := writertest.StartWriter(t, func(c *server.Config) { c.ContentStoreURL = t.TempDir() })
	doc.Servers = openapi3.Servers{{URL: e.Base}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	admin := newChecker(t, router, e.Base)
	bearer := "Authorization: Bearer tok"
	raw := "Content-Type: application/octet-stream"
	admin.want(201, "POST", "/admin/api/v1/works", newWork("OM1"), bearer)

	img := image.NewRGBA(image.Rect(0, 0, 200, 300))
	for y := 0; y < 300; y++ {
		for x := 0; x < 200; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	page := b.Bytes()

	admin.refused(401, "bearer", "POST", "/admin/api/v1/media/uploads", map[string]any{"size": len(page)})
	admin.refused(413, "size", "POST", "/admin/api/v1/media/uploads", map[string]any{"size": 1 << 40}, bearer)
	up := field[string](t, admin.want(201, "POST", "/admin/api/v1/media/uploads", map[string]any{"size": len(page), "name": "001.jpg"}, bearer), "upload", "id")
	half := len(page) / 2
	admin.want(200, "PUT", "/admin/api/v1/media/uploads/"+up+"/parts/1", string(page[:half]), bearer, raw)
	admin.want(409, "PUT", "/admin/api/v1/media/uploads/"+up+"/parts/3", string(page[half:]), bearer, raw)
	admin.want(200, "GET", "/admin/api/v1/media/uploads/"+up, nil, bearer)
	admin.want(400, "POST", "/admin/api/v1/media/uploads/"+up+"/complete", nil, bearer)
	admin.want(200, "PUT", "/admin/api/v1/media/uploads/"+up+"/parts/2", string(page[half:]), bearer, raw)
	admin.want(200, "POST", "/admin/api/v1/media/uploads/"+up+"/complete", nil, bearer)

	svg := `<svg xmlns="http://www.w3.org/2000/svg"/>`
	bad := field[string](t, admin.want(201, "POST", "/admin/api/v1/media/uploads", map[string]any{"size": len(svg)}, bearer), "upload", "id")
	admin.want(200, "PUT", "/admin/api/v1/media/uploads/"+bad+"/parts/1", svg, bearer, raw)
	admin.want(415, "POST", "/admin/api/v1/media/uploads/"+bad+"/complete", nil, bearer)
	gone := field[string](t, admin.want(201, "POST", "/admin/api/v1/media/uploads", map[string]any{"size": 10}, bearer), "upload", "id")
	admin.want(200, "DELETE", "/admin/api/v1/media/uploads/"+gone, nil, bearer)
	admin.want(409, "DELETE", "/admin/api/v1/media/uploads/"+gone, nil, bearer)
	admin.want(404, "GET", "/admin/api/v1/media/uploads/nosuch", nil, bearer)

	admin.want(404, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "volume", "pid": "OM1", "no": 9, "uploads": []string{up}}, bearer)
	admin.refused(400, "target", "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "poster", "pid": "OM1", "uploads": []string{up}}, bearer)
	job := field[float64](t, admin.want(202, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "volume", "pid": "OM1", "no": 2, "uploads": []string{up}}, bearer), "job", "id")
	path := fmt.Sprintf("/admin/api/v1/media/jobs/%d", int64(job))
	writertest.Eventually(t, 60*time.Second, "job done", func() bool {
		return field[string](t, admin.want(200, "GET", path, nil, bearer), "job", "state") == "done"
	})
	admin.want(200, "GET", "/admin/api/v1/media/jobs?pid=OM1&no=2", nil, bearer)
	admin.refused(400, "pid", "GET", "/admin/api/v1/media/jobs", nil, bearer)
	admin.want(404, "GET", "/admin/api/v1/media/jobs/424242", nil, bearer)
}
