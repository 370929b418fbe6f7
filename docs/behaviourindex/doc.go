// Package behaviourindex checks the README's "Where each behaviour lives"
// table: a newcomer follows it from a seed behaviour to the files that own
// it, so a path that was renamed or removed must fail the tests, not mislead.
package behaviourindex
