package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/user"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/svc"
	"storefront/writer/migrations"
	"storefront/writer/staff"
)

// staffCmd is `storefront staff create-operator`: the only way an operator
// account comes to be without another operator (the first one, or a
// break-glass one). There is no default account in any mode.
func staffCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create-operator" {
		return errors.New("usage: storefront staff create-operator -login <login> -name <name> [-database-url URL] < password")
	}
	fs := flag.NewFlagSet("storefront staff create-operator", flag.ContinueOnError)
	url := fs.String("database-url", "", "the writer's PostgreSQL (env DATABASE_URL)")
	login := fs.String("login", "", "the operator's login (a-z 0-9 . _ -, 3-40)")
	name := fs.String("name", "", "the operator's name")
	asJSON := fs.Bool("json", false, "print the account and its TOTP secret as JSON (for scripts and tests)")
	format, level := svc.LogFlags(fs)
	if err := svc.Parse(fs, args[1:]); err != nil {
		return err
	}
	if *url == "" {
		return errors.New("DATABASE_URL or -database-url is required")
	}
	// The password comes on standard input, never as a flag: flags are seen
	// by every user of the machine (ps) and kept in shell histories.
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("cannot read the password: %w", err)
	}
	password := strings.TrimRight(line, "\r\n")
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, *url)
	if err != nil {
		return fmt.Errorf("connect postgres: %w", err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool, svc.NewLogger(*format, *level)); err != nil {
		return err
	}
	osUser := "unknown"
	if u, err := user.Current(); err == nil {
		osUser = u.Username
	}
	c, err := staff.CreateOperator(ctx, pool, *login, *name, password, osUser)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(c)
	}
	fmt.Fprintf(stdout, "operator %s (id %d) created.\nTOTP secret (put it in an authenticator app now; it is not shown again): %s\n%s\n",
		c.Account.Login, c.Account.ID, c.TOTPSecret, c.TOTPURI)
	return nil
}
