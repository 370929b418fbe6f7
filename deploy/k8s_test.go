package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"storefront/deploy/images"
)

// serviceMonitor is the part of the Prometheus operator's CRD we use;
// decoded strictly like the built-in kinds, so a misspelt field fails.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		JobLabel  string               `json:"jobLabel,omitempty"`
		Endpoints []struct {
			Port          string `json:"port"`
			Path          string `json:"path,omitempty"`
			Interval      string `json:"interval,omitempty"`
			ScrapeTimeout string `json:"scrapeTimeout,omitempty"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// rendered is one overlay's objects, by kind.
type rendered struct {
	deployments  []appsv1.Deployment
	services     []corev1.Service
	configMaps   map[string]corev1.ConfigMap
	secrets      map[string]corev1.Secret
	hpas         []autoscalingv2.HorizontalPodAutoscaler
	pdbs         []policyv1.PodDisruptionBudget
	jobs         []batchv1.Job
	monitors     []serviceMonitor
	namespaces   map[string]bool
	objectsCount int
}

// render builds an overlay the way `kustomize build` does (the same
// kustomize/api version as the CLI scripts/setup.sh installs).
func render(t *testing.T, overlay string) []byte {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join("k8s", "overlays", overlay))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", overlay, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decode splits a rendered stream and decodes every object strictly into its
// API type: an unknown kind, an unknown or misspelt field, or a value of the
// wrong type is an error.
func decode(stream []byte) (*rendered, error) {
	r := &rendered{configMaps: map[string]corev1.ConfigMap{}, secrets: map[string]corev1.Secret{}, namespaces: map[string]bool{}}
	for _, doc := range bytes.Split(stream, []byte("\n---\n")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, err
		}
		var err error
		switch tm.APIVersion + " " + tm.Kind {
		case "apps/v1 Deployment":
			err = strictInto(doc, &r.deployments)
		case "v1 Service":
			err = strictInto(doc, &r.services)
		case "v1 ConfigMap":
			var cms []corev1.ConfigMap
			if err = strictInto(doc, &cms); err == nil {
				r.configMaps[cms[0].Name] = cms[0]
			}
		case "v1 Secret":
			var ss []corev1.Secret
			if err = strictInto(doc, &ss); err == nil {
				r.secrets[ss[0].Name] = ss[0]
			}
		case "autoscaling/v2 HorizontalPodAutoscaler":
			err = strictInto(doc, &r.hpas)
		case "policy/v1 PodDisruptionBudget":
			err = strictInto(doc, &r.pdbs)
		case "batch/v1 Job":
			err = strictInto(doc, &r.jobs)
		case "monitoring.coreos.com/v1 ServiceMonitor":
			err = strictInto(doc, &r.monitors)
		default:
			return nil, fmt.Errorf("unexpected object %s %s", tm.APIVersion, tm.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tm.Kind, err)
		}
		var meta struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, err
		}
		r.namespaces[meta.Metadata.Namespace] = true
		r.objectsCount++
	}
	return r, nil
}

// strictInto decodes doc strictly into a new element of *list.
func strictInto[T any](doc []byte, list *[]T) error {
	var o T
	if err := yaml.UnmarshalStrict(doc, &o); err != nil {
		return err
	}
	*list = append(*list, o)
	return nil
}

// The validator is strict: a misspelt field fails the decode.
func TestDecodeIsStrict(t *testing.T) {
	bad := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  replica: 2\n")
	if _, err := decode(bad); err == nil || !strings.Contains(err.Error(), "replica") {
		t.Fatalf("decode of a misspelt field: %v, want an error naming it", err)
	}
	if _, err := decode([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n")); err == nil {
		t.Fatal("an object of an unexpected kind was accepted")
	}
}

// readEnvFile reads KEY=value lines (comments and blank lines skipped).
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: %q is not KEY=value", path, line)
		}
		out[k] = v
	}
	return out
}

// serviceOf names the service an image runs: registry.example.com/storefront-edge:1 → edge.
func serviceOf(image string) string {
	name := image[strings.LastIndex(image, "/")+1:]
	name, _, _ = strings.Cut(name, ":")
	return strings.TrimPrefix(name, "storefront-")
}

func TestOverlaysRenderAndValidate(t *testing.T) {
	envs := envNames(t)
	ports := map[string][]string{}
	for _, s := range images.Specs("", "") {
		ports[s.Name] = s.Ports
	}
	external := readEnvFile(t, "k8s/overlays/production/secrets.env.example")
	for _, overlay := range []string{"dev", "production"} {
		t.Run(overlay, func(t *testing.T) {
			r, err := decode(render(t, overlay))
			if err != nil {
				t.Fatal(err)
			}
			if len(r.namespaces) != 1 || r.namespaces[""] {
				t.Errorf("objects in namespaces %v, want all in the overlay's one", r.namespaces)
			}
			secretKey := func(name, key string) bool {
				if s, ok := r.secrets[name]; ok {
					_, in := s.Data[key]
					_, inS := s.StringData[key]
					return in || inS
				}
				// Production's Secret is made by the operator from the example's keys.
				_, ok := external[key]
				return overlay == "production" && name == "storefront-secrets" && ok
			}
			checkPod := func(kind, name string, spec corev1.PodSpec) {
				sc := spec.SecurityContext
				if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != images.NonRoot {
					t.Errorf("%s %s: pod not run as the images' non-root user", kind, name)
				}
				for _, c := range spec.Containers {
					svcName := serviceOf(c.Image)
					known, ok := envs[svcName]
					if !ok {
						t.Errorf("%s %s: image %s is none of ours", kind, name, c.Image)
						continue
					}
					cs := c.SecurityContext
					if cs == nil || cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation || cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem ||
						cs.Capabilities == nil || !slices.Contains(cs.Capabilities.Drop, "ALL") {
						t.Errorf("%s %s: container %s not locked down (no escalation, read-only root, all capabilities dropped)", kind, name, c.Name)
					}
					for _, vm := range c.VolumeMounts {
						if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == vm.Name }) {
							t.Errorf("%s %s: container %s mounts %s, no volume of the pod", kind, name, c.Name, vm.Name)
						}
					}
					for _, e := range c.Env {
						if !known[e.Name] {
							t.Errorf("%s %s: %s reads no %s (not among its flags' variables)", kind, name, svcName, e.Name)
						}
						if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil && !secretKey(ref.SecretKeyRef.Name, ref.SecretKeyRef.Key) {
							t.Errorf("%s %s: secret %s has no key %s", kind, name, ref.SecretKeyRef.Name, ref.SecretKeyRef.Key)
						}
					}
					for _, from := range c.EnvFrom {
						if from.ConfigMapRef == nil {
							t.Errorf("%s %s: envFrom other than a ConfigMap", kind, name)
							continue
						}
						cm, ok := r.configMaps[from.ConfigMapRef.Name]
						if !ok {
							t.Errorf("%s %s: ConfigMap %s is not rendered", kind, name, from.ConfigMapRef.Name)
						}
						for k := range cm.Data {
							if !known[k] {
								t.Errorf("%s %s: ConfigMap %s sets %s, which %s does not read", kind, name, cm.Name, k, svcName)
							}
						}
					}
					if kind != "Deployment" {
						continue
					}
					var cports []string
					for _, p := range c.Ports {
						cports = append(cports, fmt.Sprintf("%d/%s", p.ContainerPort, strings.ToLower(string(p.Protocol))))
					}
					if !slices.Equal(cports, ports[svcName]) {
						t.Errorf("Deployment %s: ports %v, the image exposes %v", name, cports, ports[svcName])
					}
					for what, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
						if p == nil || p.HTTPGet == nil || !slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.HTTPGet.Port.String() }) {
							t.Errorf("Deployment %s: no %s probe on a named port of the container", name, what)
						}
					}
					if c.ReadinessProbe != nil && c.ReadinessProbe.HTTPGet != nil && c.ReadinessProbe.HTTPGet.Path != "/readyz" {
						t.Errorf("Deployment %s: readiness on %s, want /readyz", name, c.ReadinessProbe.HTTPGet.Path)
					}
				}
			}
			podLabels := map[string]labels.Set{}
			for _, d := range r.deployments {
				sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
				if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
					t.Errorf("Deployment %s: selector does not match its pods (%v)", d.Name, err)
				}
				podLabels[d.Name] = d.Spec.Template.Labels
				checkPod("Deployment", d.Name, d.Spec.Template.Spec)
			}
			for _, want := range []string{"edge", "writer", "analytics"} {
				if podLabels[want] == nil {
					t.Errorf("no Deployment %s", want)
				}
			}
			selects := func(sel *metav1.LabelSelector) []string {
				s, err := metav1.LabelSelectorAsSelector(sel)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for n, l := range podLabels {
					if s.Matches(l) {
						out = append(out, n)
					}
				}
				return out
			}
			var edgeHPA, edgePDB bool
			for _, h := range r.hpas {
				ref := h.Spec.ScaleTargetRef
				_, ok := podLabels[ref.Name]
				if ref.Kind != "Deployment" || !ok {
					t.Errorf("HPA %s scales %s %s, which is not rendered", h.Name, ref.Kind, ref.Name)
				}
				if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || *h.Spec.MinReplicas > h.Spec.MaxReplicas {
					t.Errorf("HPA %s: replicas %v..%d", h.Name, h.Spec.MinReplicas, h.Spec.MaxReplicas)
				}
				edgeHPA = edgeHPA || ref.Name == "edge"
			}
			for _, p := range r.pdbs {
				got := selects(p.Spec.Selector)
				if len(got) != 1 {
					t.Errorf("PDB %s selects the pods of %v, want one Deployment", p.Name, got)
				}
				edgePDB = edgePDB || slices.Equal(got, []string{"edge"})
			}
			if !edgeHPA || !edgePDB {
				t.Errorf("edge autoscaler %v, disruption budget %v: want both", edgeHPA, edgePDB)
			}
			svcPorts := map[string][]string{}
			for _, s := range r.services {
				got := selects(&metav1.LabelSelector{MatchLabels: s.Spec.Selector})
				if len(got) != 1 {
					t.Errorf("Service %s selects the pods of %v, want one Deployment", s.Name, got)
					continue
				}
				for _, p := range s.Spec.Ports {
					svcPorts[s.Name] = append(svcPorts[s.Name], p.Name)
					d := r.deployments[slices.IndexFunc(r.deployments, func(d appsv1.Deployment) bool { return d.Name == got[0] })]
					if !slices.ContainsFunc(d.Spec.Template.Spec.Containers[0].Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.TargetPort.String() }) {
						t.Errorf("Service %s: target port %s is no port of %s", s.Name, p.TargetPort.String(), got[0])
					}
				}
			}
			scraped := map[string]bool{}
			for _, m := range r.monitors {
				for _, s := range r.services {
					sel, _ := metav1.LabelSelectorAsSelector(&m.Spec.Selector)
					if !sel.Matches(labels.Set(s.Labels)) {
						continue
					}
					for _, ep := range m.Spec.Endpoints {
						if s.Name == "edge" && ep.Port == "http" {
							t.Errorf("ServiceMonitor %s scrapes the edge's readers' port: /metrics is on its ops port only", m.Name)
						}
						if !slices.Contains(svcPorts[s.Name], ep.Port) || ep.Path != "/metrics" {
							t.Errorf("ServiceMonitor %s: endpoint %s%s is not the /metrics of a port of Service %s", m.Name, ep.Port, ep.Path, s.Name)
						}
					}
					scraped[s.Name] = true
				}
			}
			for _, s := range []string{"edge", "writer", "analytics"} {
				if !scraped[s] {
					t.Errorf("no ServiceMonitor scrapes Service %s", s)
				}
			}
			migrates := map[string]string{}
			for _, j := range r.jobs {
				checkPod("Job", j.Name, j.Spec.Template.Spec)
				c := j.Spec.Template.Spec.Containers[0]
				if !slices.Equal(c.Args, []string{"migrate"}) {
					t.Errorf("Job %s: args %v, want [migrate]", j.Name, c.Args)
				}
				for _, e := range c.Env {
					if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
						migrates[serviceOf(c.Image)+" "+e.Name] = e.ValueFrom.SecretKeyRef.Key
					}
				}
			}
			// PostgreSQL's migrations through the direct URL, never the pooler's.
			if migrates["writer DATABASE_MIGRATE_URL"] != "DATABASE_DIRECT_URL" || migrates["analytics CLICKHOUSE_URL"] == "" {
				t.Errorf("migration Jobs read %v; want writer's DATABASE_MIGRATE_URL from DATABASE_DIRECT_URL and analytics' CLICKHOUSE_URL", migrates)
			}
			if r.objectsCount < 15 {
				t.Errorf("only %d objects rendered", r.objectsCount)
			}
		})
	}
}
