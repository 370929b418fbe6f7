package security

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"storefront/writer/identity/portonesandbox"
)

// verifyAdult goes through adult verification through the edge as the
// person named, born on birth: start, the identity sandbox's certification
// page (a phone number of this member's, so two members given the same name
// and birth date are two people), verify.
func (c *client) verifyAdult(name, birth string) (int, []byte) {
	c.t.Helper()
	return c.verifyAs(portonesandbox.Person{Name: name, BirthDate: birth, PhoneNumber: c.phone()})
}

func (c *client) phone() string {
	n, _ := strconv.ParseInt(c.uid, 10, 64)
	return fmt.Sprintf("010%08d", n%100000000)
}

func (c *client) verifyAs(p portonesandbox.Person) (int, []byte) {
	c.t.Helper()
	st, b := c.do("POST", "/home/api/v1/auth/adult/start", nil)
	var a struct {
		ID   string `json:"identityVerificationId"`
		Page string `json:"pageUrl"`
	}
	if st != 200 || json.Unmarshal(b, &a) != nil || a.Page == "" {
		c.t.Fatalf("adult/start: %d %s", st, b)
	}
	if err := portonesandbox.Certify(context.Background(), a.Page, p); err != nil {
		c.t.Fatal(err)
	}
	return c.do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": a.ID})
}

// Finding 2 of issue 30, through the edge: a member verified as a teen (born
// 2012) verifies again as another person born 1991. Refused with 409, the
// level stays 1, and the adult work's title is still not served to them.
func TestTeenCannotReverifyAsAnotherPerson(t *testing.T) {
	s := startStack(t, options{})
	teen := s.member("teen2012@example.com")
	if st, b := teen.verifyAdult("이청소", "2012-03-03"); st != 200 {
		t.Fatalf("teen verification: %d %s", st, b)
	}
	st, b := teen.verifyAs(portonesandbox.Person{Name: "김어른", BirthDate: "1991-05-05", PhoneNumber: "01099998888"})
	if st != 409 {
		t.Fatalf("re-verification as another person: %d %s", st, b)
	}
	if st, b := teen.get("/home/api/v1/auth/me"); st != 200 || !bytes.Contains(b, []byte(`"adultLevel":1`)) {
		t.Fatalf("teen's level after the refusal: %d %s", st, b)
	}
	if _, b := teen.get("/home/api/v1/products/" + adultWork); bytes.Contains(b, []byte(adultName)) {
		t.Fatal("the adult work's title was served to the teen")
	}
	// The control: the person born 1991, on their own account, sees it.
	adult := s.member("adult1991@example.com")
	if st, b := adult.verifyAs(portonesandbox.Person{Name: "김어른", BirthDate: "1991-05-05", PhoneNumber: "01099998888"}); st != 200 {
		t.Fatalf("adult verification: %d %s", st, b)
	}
	if _, b := adult.get("/home/api/v1/products/" + adultWork); !bytes.Contains(b, []byte(adultName)) {
		t.Fatalf("the adult does not see the adult work: the check above proves nothing: %s", b)
	}
}
