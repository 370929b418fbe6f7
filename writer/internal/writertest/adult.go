package writertest

import (
	"context"
	"encoding/json"

	"storefront/writer/identity/portonesandbox"
)

// StartAdult starts an identity verification (POST adult/start) and returns
// its id and the sandbox's certification page, failing the test otherwise.
func (c *Client) StartAdult() (id, page string) {
	c.T.Helper()
	st, body := c.Do("POST", "/home/api/v1/auth/adult/start", nil)
	var a struct {
		ID   string `json:"identityVerificationId"`
		Page string `json:"pageUrl"`
	}
	if st != 200 || json.Unmarshal(body, &a) != nil || a.ID == "" || a.Page == "" {
		c.T.Fatalf("adult/start: %d %s", st, body)
	}
	return a.ID, a.Page
}

// VerifyAdult goes through adult verification as the person named, born on
// birth (YYYY-MM-DD): start, the sandbox's certification page, verify. It
// returns the verify answer.
func (c *Client) VerifyAdult(name, birth string) (int, []byte) {
	c.T.Helper()
	id, page := c.StartAdult()
	if err := portonesandbox.Certify(context.Background(), page, portonesandbox.Person{Name: name, BirthDate: birth}); err != nil {
		c.T.Fatal(err)
	}
	return c.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": id})
}
