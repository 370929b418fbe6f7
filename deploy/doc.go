// Package deploy holds what an operator deploys the store with, and the tests
// that keep it true to the code:
//
//	images/       OCI images built without a container engine (scripts/images.sh)
//	k8s/          Kustomize base and overlays (dev, production)
//	systemd/      units with hardening options and an environment file per service
//	monitoring/   Grafana dashboards and Prometheus alert rules with their promtool tests
//
// The tests render every overlay and decode each object strictly with the
// Kubernetes API types, check each environment variable a manifest or unit
// sets against the flags the service registers, and check each metric a
// dashboard or alert reads against the metrics the services register. The
// Kubernetes and Kustomize modules are linked by these tests only.
package deploy
