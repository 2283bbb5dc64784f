/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package localcluster

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// serviceAccountDir is where a pod's ServiceAccount credentials are mounted.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// podServiceHost and podServicePort are where a local pod reaches the
// kubernetes Service; the apiserver's certificate is valid for 127.0.0.1.
const (
	podServiceHost = "127.0.0.1"
	podServicePort = 443
)

// PodImage is what a container image gives a local pod: its ENTRYPOINT, CMD,
// USER and the files it holds.
type PodImage struct {
	// Entrypoint and Cmd are the image's, in exec form.
	Entrypoint, Cmd []string
	// User is the image's USER as uid or uid:gid; empty means root.
	User string
	// Files maps a path in the image to the file on this machine with its content.
	Files map[string]string
}

// LocalPod is one pod's container run on this machine as a kubelet would run
// it: the image's ENTRYPOINT with the container's args, the container's
// environment (downward API included), the pod's volumes and ServiceAccount
// token, its user and read-only root, in its own network namespace where
// the kubernetes Service answers on 127.0.0.1:443. Its probes run as the
// kubelet's do; a ready pod receives the connections that the apiserver
// makes to Services selecting it.
type LocalPod struct {
	// Pod is the pod as run; it has no object in the apiserver.
	Pod *corev1.Pod
	// Process is the pod's init process; its log is the container's log.
	*Process

	socketDir  string
	api        net.Listener
	network    *serviceNetwork
	cancel     context.CancelFunc
	ready      atomic.Bool
	liveFailed atomic.Int32
}

// PodFromTemplate makes the pod that a controller would create from tmpl.
func PodFromTemplate(namespace, name string, tmpl *corev1.PodTemplateSpec) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: *tmpl.ObjectMeta.DeepCopy(), Spec: *tmpl.Spec.DeepCopy()}
	pod.Namespace, pod.Name = namespace, name
	pod.UID = types.UID("local-" + namespace + "-" + name)
	return pod
}

// RunPod starts pod's only container from the image it names in images
// (keyed by repository, without tag or digest) and returns once its process
// runs. The cluster must have been started WithPodNetwork. Stop or Kill it.
func (c *Cluster) RunPod(ctx context.Context, pod *corev1.Pod, images map[string]PodImage) (_ *LocalPod, err error) {
	if c.network == nil {
		return nil, errors.New("localcluster: RunPod needs a cluster started WithPodNetwork")
	}
	if len(pod.Spec.Containers) != 1 || len(pod.Spec.InitContainers) > 0 {
		return nil, fmt.Errorf("pod %s: local pods run exactly one container and no init containers", pod.Name)
	}
	container := &pod.Spec.Containers[0]
	image, ok := images[imageRepository(container.Image)]
	if !ok {
		return nil, fmt.Errorf("pod %s: no local image for %q", pod.Name, container.Image)
	}
	dir := filepath.Join(c.Dir, "pods", pod.Name)
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "volumes"), 0o755); err != nil {
		return nil, fmt.Errorf("creating the pod's directory: %w", err)
	}
	spec := &sandboxSpec{
		Hostname:     pod.Name,
		Root:         filepath.Join(dir, "rootfs"),
		ImageFiles:   image.Files,
		ReadOnlyRoot: container.SecurityContext != nil && ptr.Deref(container.SecurityContext.ReadOnlyRootFilesystem, false),
		WorkingDir:   container.WorkingDir,
		APIPort:      podServicePort,
		APISocket:    filepath.Join(dir, "api.sock"),
		SocketDir:    dir,
	}
	if spec.Argv, err = containerArgv(container, image); err != nil {
		return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
	}
	if spec.UID, spec.GID, spec.Groups, err = podCredentials(pod, container, image); err != nil {
		return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
	}
	if spec.Mounts, err = c.podVolumes(ctx, pod, container, filepath.Join(dir, "volumes")); err != nil {
		return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
	}
	if spec.Env, err = c.podEnv(ctx, pod, container); err != nil {
		return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
	}
	for _, p := range container.Ports {
		spec.Ports = append(spec.Ports, int(p.ContainerPort))
	}
	// The argv refers to the container's environment as $(NAME).
	spec.Argv = expandRefs(spec.Argv, spec.Env)
	raw, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the sandbox spec: %w", err)
	}
	specPath := filepath.Join(dir, "sandbox.json")
	if err := os.WriteFile(specPath, raw, 0o644); err != nil {
		return nil, fmt.Errorf("writing the sandbox spec: %w", err)
	}

	p := &LocalPod{Pod: pod, socketDir: dir, network: c.network}
	_ = os.Remove(spec.APISocket)
	if p.api, err = net.Listen("unix", spec.APISocket); err != nil {
		return nil, fmt.Errorf("listening for the pod's apiserver connections: %w", err)
	}
	apiserver, err := url.Parse(c.Config.Host)
	if err != nil {
		_ = p.api.Close()
		return nil, fmt.Errorf("parsing the apiserver's address: %w", err)
	}
	go forward(p.api, func() (net.Conn, error) { return net.Dial("tcp", apiserver.Host) })

	p.Process, err = startProcessWithAttr(pod.Name, c.LogDir(), nil, &syscall.SysProcAttr{
		Setpgid:    true,
		Pdeathsig:  syscall.SIGKILL,
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWUTS,
	}, c.podInit, "pod-init", specPath)
	if err != nil {
		_ = p.api.Close()
		return nil, err
	}
	probeCtx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go p.probe(probeCtx, container.ReadinessProbe, func(ok bool) { p.ready.Store(ok) }, true)
	go p.probe(probeCtx, container.LivenessProbe, func(ok bool) {
		if !ok {
			p.liveFailed.Add(1)
		}
	}, false)
	go func() {
		<-p.Done()
		p.ready.Store(false)
		cancel()
		_ = p.api.Close()
		c.network.remove(p)
	}()
	c.network.add(p)
	return p, nil
}

// Ready reports whether the pod's readiness probe passes (true without a probe once it runs).
func (p *LocalPod) Ready() bool { return p.ready.Load() }

// LivenessFailures counts the times the liveness probe failed failureThreshold
// times in a row, when a kubelet would have restarted the container.
func (p *LocalPod) LivenessFailures() int { return int(p.liveFailed.Load()) }

// Delete stops the pod as the kubelet does on deletion: SIGTERM, then SIGKILL
// after the pod's termination grace period.
func (p *LocalPod) Delete() {
	p.Stop(time.Duration(ptr.Deref(p.Pod.Spec.TerminationGracePeriodSeconds, 30)) * time.Second)
}

// Transport returns an HTTP transport whose connections reach the pod's
// container ports: a URL's port picks the container port, its host is ignored.
func (p *LocalPod) Transport(tlsConfig *tls.Config) *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			_, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(port)
			if err != nil {
				return nil, err
			}
			var d net.Dialer
			return d.DialContext(ctx, "unix", portSocket(p.socketDir, n))
		},
		TLSClientConfig:   tlsConfig,
		DisableKeepAlives: true,
	}
}

// probe runs one of the container's probes as the kubelet does and reports
// each verdict (after failureThreshold failures or successThreshold
// successes) to report. Without a probe a readiness probe reports success.
func (p *LocalPod) probe(ctx context.Context, pr *corev1.Probe, report func(bool), readiness bool) {
	if pr == nil {
		if readiness {
			report(true)
		}
		return
	}
	if pr.HTTPGet == nil {
		return // exec, tcpSocket and gRPC probes are not run locally
	}
	port := resolvePort(p.Pod, pr.HTTPGet.Port)
	scheme := strings.ToLower(string(pr.HTTPGet.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	target := fmt.Sprintf("%s://%s:%d%s", scheme, p.Pod.Name, port, pr.HTTPGet.Path)
	timeout := time.Duration(max(pr.TimeoutSeconds, 1)) * time.Second
	client := &http.Client{Transport: p.Transport(&tls.Config{InsecureSkipVerify: true}), Timeout: timeout} //nolint:gosec // the kubelet does not verify probe certificates
	period := time.Duration(max(pr.PeriodSeconds, 10)) * time.Second
	failureThreshold, successThreshold := max(pr.FailureThreshold, 3), max(pr.SuccessThreshold, 1)
	if !readiness {
		successThreshold = 1
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(time.Duration(pr.InitialDelaySeconds) * time.Second):
	}
	var fails, oks int32
	_ = wait.PollUntilContextCancel(ctx, period, true, func(ctx context.Context) (bool, error) {
		ok := false
		if resp, err := client.Get(target); err == nil {
			_ = resp.Body.Close()
			ok = resp.StatusCode >= 200 && resp.StatusCode < 400
		}
		if ok {
			fails, oks = 0, oks+1
			if oks >= successThreshold {
				report(true)
			}
		} else {
			fails, oks = fails+1, 0
			if fails == failureThreshold {
				report(false)
				if !readiness {
					fails = 0
				}
			} else if readiness && fails > failureThreshold {
				report(false)
			}
		}
		return false, nil
	})
}

func resolvePort(pod *corev1.Pod, port intstr.IntOrString) int {
	if n := containerPort(pod, port); n > 0 {
		return n
	}
	return port.IntValue()
}

// imageRepository strips an image reference's tag or digest.
func imageRepository(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

// containerArgv is the kubelet's rule: command replaces the ENTRYPOINT, args
// replace the CMD, and a command without args drops the CMD too.
func containerArgv(c *corev1.Container, image PodImage) ([]string, error) {
	var argv []string
	switch {
	case len(c.Command) > 0:
		argv = append(append(argv, c.Command...), c.Args...)
	case len(c.Args) > 0:
		argv = append(append(argv, image.Entrypoint...), c.Args...)
	default:
		argv = append(append(argv, image.Entrypoint...), image.Cmd...)
	}
	if len(argv) == 0 {
		return nil, errors.New("the container has no command and the image no ENTRYPOINT or CMD")
	}
	if !path.IsAbs(argv[0]) {
		return nil, fmt.Errorf("the command %q is not an absolute path; local images have no PATH lookup", argv[0])
	}
	return argv, nil
}

// podCredentials decides the container's user and groups as the kubelet
// does, and refuses root when runAsNonRoot asks.
func podCredentials(pod *corev1.Pod, c *corev1.Container, image PodImage) (uid, gid uint32, groups []uint32, err error) {
	uidText, gidText, _ := strings.Cut(image.User, ":")
	imageUID, _ := strconv.ParseUint(uidText, 10, 32)
	imageGID, _ := strconv.ParseUint(gidText, 10, 32)
	uid, gid = uint32(imageUID), uint32(imageGID)
	nonRoot := false
	if psc := pod.Spec.SecurityContext; psc != nil {
		if psc.RunAsUser != nil {
			uid = uint32(*psc.RunAsUser)
		}
		if psc.RunAsGroup != nil {
			gid = uint32(*psc.RunAsGroup)
		}
		if psc.FSGroup != nil {
			groups = append(groups, uint32(*psc.FSGroup))
		}
		for _, g := range psc.SupplementalGroups {
			groups = append(groups, uint32(g))
		}
		nonRoot = ptr.Deref(psc.RunAsNonRoot, false)
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			uid = uint32(*sc.RunAsUser)
		}
		if sc.RunAsGroup != nil {
			gid = uint32(*sc.RunAsGroup)
		}
		if sc.RunAsNonRoot != nil {
			nonRoot = *sc.RunAsNonRoot
		}
	}
	if nonRoot && uid == 0 {
		return 0, 0, nil, errors.New("container has runAsNonRoot and its image will run as root")
	}
	return uid, gid, groups, nil
}

// podVolumes writes the container's secret, configMap and ServiceAccount
// volumes under dir and returns its mounts, the ServiceAccount's included.
func (c *Cluster) podVolumes(ctx context.Context, pod *corev1.Pod, container *corev1.Container, dir string) ([]sandboxMount, error) {
	volumes := map[string]*corev1.Volume{}
	for i := range pod.Spec.Volumes {
		volumes[pod.Spec.Volumes[i].Name] = &pod.Spec.Volumes[i]
	}
	var mounts []sandboxMount
	hasServiceAccountMount := false
	for _, vm := range container.VolumeMounts {
		if vm.SubPath != "" || vm.SubPathExpr != "" {
			return nil, fmt.Errorf("volume mount %s: subPath is not supported locally", vm.Name)
		}
		v, ok := volumes[vm.Name]
		if !ok {
			return nil, fmt.Errorf("volume mount %s names no volume", vm.Name)
		}
		hasServiceAccountMount = hasServiceAccountMount || path.Clean(vm.MountPath) == serviceAccountDir
		m := sandboxMount{Target: vm.MountPath, ReadOnly: vm.ReadOnly}
		switch {
		case v.EmptyDir != nil:
			if v.EmptyDir.SizeLimit != nil {
				m.SizeBytes = v.EmptyDir.SizeLimit.Value()
			}
		case v.Secret != nil:
			files, err := c.secretFiles(ctx, pod.Namespace, v.Secret)
			if err != nil {
				return nil, fmt.Errorf("volume %s: %w", v.Name, err)
			}
			if m.Source, err = writeVolume(filepath.Join(dir, v.Name), files, ptr.Deref(v.Secret.DefaultMode, 0o644)); err != nil {
				return nil, err
			}
			m.ReadOnly = true
		case v.ConfigMap != nil:
			files, err := c.configMapFiles(ctx, pod.Namespace, v.ConfigMap)
			if err != nil {
				return nil, fmt.Errorf("volume %s: %w", v.Name, err)
			}
			if m.Source, err = writeVolume(filepath.Join(dir, v.Name), files, ptr.Deref(v.ConfigMap.DefaultMode, 0o644)); err != nil {
				return nil, err
			}
			m.ReadOnly = true
		default:
			return nil, fmt.Errorf("volume %s: only emptyDir, secret and configMap volumes run locally", v.Name)
		}
		mounts = append(mounts, m)
	}
	if hasServiceAccountMount || !c.automountsToken(ctx, pod) {
		return mounts, nil
	}
	files, err := c.serviceAccountFiles(ctx, pod)
	if err != nil {
		return nil, err
	}
	source, err := writeVolume(filepath.Join(dir, "kube-api-access"), files, 0o644)
	if err != nil {
		return nil, err
	}
	return append(mounts, sandboxMount{Target: serviceAccountDir, Source: source, ReadOnly: true}), nil
}

func (c *Cluster) automountsToken(ctx context.Context, pod *corev1.Pod) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	sa, err := c.Clientset.CoreV1().ServiceAccounts(pod.Namespace).Get(ctx, serviceAccountName(pod), metav1.GetOptions{})
	return err != nil || ptr.Deref(sa.AutomountServiceAccountToken, true)
}

func serviceAccountName(pod *corev1.Pod) string {
	if pod.Spec.ServiceAccountName != "" {
		return pod.Spec.ServiceAccountName
	}
	return "default"
}

// serviceAccountFiles requests a token of the pod's ServiceAccount, as the
// kubelet does for the projected kube-api-access volume.
func (c *Cluster) serviceAccountFiles(ctx context.Context, pod *corev1.Pod) (map[string][]byte, error) {
	name := serviceAccountName(pod)
	tr, err := c.Clientset.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("requesting a token of ServiceAccount %s/%s: %w", pod.Namespace, name, err)
	}
	return map[string][]byte{"token": []byte(tr.Status.Token), "ca.crt": c.caPEM, "namespace": []byte(pod.Namespace)}, nil
}

// secretFiles waits for the Secret (a kubelet keeps the pod in
// ContainerCreating until it exists) and returns the files its volume shows.
func (c *Cluster) secretFiles(ctx context.Context, namespace string, v *corev1.SecretVolumeSource) (map[string][]byte, error) {
	secret, err := waitForObject(ctx, "Secret "+namespace+"/"+v.SecretName, ptr.Deref(v.Optional, false), &corev1.Secret{},
		func(ctx context.Context) (*corev1.Secret, error) {
			return c.Clientset.CoreV1().Secrets(namespace).Get(ctx, v.SecretName, metav1.GetOptions{})
		})
	if err != nil {
		return nil, err
	}
	return volumeFiles(secret.Data, v.Items)
}

// configMapFiles is secretFiles for a ConfigMap volume.
func (c *Cluster) configMapFiles(ctx context.Context, namespace string, v *corev1.ConfigMapVolumeSource) (map[string][]byte, error) {
	cm, err := waitForObject(ctx, "ConfigMap "+namespace+"/"+v.Name, ptr.Deref(v.Optional, false), &corev1.ConfigMap{},
		func(ctx context.Context) (*corev1.ConfigMap, error) {
			return c.Clientset.CoreV1().ConfigMaps(namespace).Get(ctx, v.Name, metav1.GetOptions{})
		})
	if err != nil {
		return nil, err
	}
	data := map[string][]byte{}
	for k, s := range cm.Data {
		data[k] = []byte(s)
	}
	for k, b := range cm.BinaryData {
		data[k] = b
	}
	return volumeFiles(data, v.Items)
}

// waitForObject polls get until the object exists; a missing optional one
// is empty instead.
func waitForObject[T any](ctx context.Context, what string, optional bool, empty T, get func(context.Context) (T, error)) (T, error) {
	var obj T
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var err error
		obj, err = get(ctx)
		if apierrors.IsNotFound(err) && optional {
			obj = empty
			return true, nil
		}
		return err == nil, nil
	})
	if err != nil {
		return obj, fmt.Errorf("waiting for %s: %w", what, err)
	}
	return obj, nil
}

// volumeFiles picks the keys that items names, or all of them.
func volumeFiles(data map[string][]byte, items []corev1.KeyToPath) (map[string][]byte, error) {
	if len(items) == 0 {
		return data, nil
	}
	out := map[string][]byte{}
	for _, it := range items {
		b, ok := data[it.Key]
		if !ok {
			return nil, fmt.Errorf("key %s is missing", it.Key)
		}
		out[it.Path] = b
	}
	return out, nil
}

func writeVolume(dir string, files map[string][]byte, mode int32) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("creating %s: %w", filepath.Dir(p), err)
		}
		if err := os.WriteFile(p, b, os.FileMode(mode)); err != nil {
			return "", fmt.Errorf("writing %s: %w", p, err)
		}
	}
	return dir, nil
}

// podEnv is the container's environment as the kubelet builds it: the
// kubernetes Service's variables, HOSTNAME, then env with its references
// and downward-API fields resolved.
func (c *Cluster) podEnv(ctx context.Context, pod *corev1.Pod, container *corev1.Container) ([]string, error) {
	env := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOSTNAME=" + pod.Name,
		"KUBERNETES_SERVICE_HOST=" + podServiceHost,
		"KUBERNETES_SERVICE_PORT=" + strconv.Itoa(podServicePort),
		"KUBERNETES_SERVICE_PORT_HTTPS=" + strconv.Itoa(podServicePort),
		fmt.Sprintf("KUBERNETES_PORT=tcp://%s:%d", podServiceHost, podServicePort),
	}
	if len(container.EnvFrom) > 0 {
		return nil, errors.New("envFrom is not supported locally")
	}
	for _, e := range container.Env {
		value := e.Value
		if e.ValueFrom != nil {
			var err error
			if value, err = c.envSource(ctx, pod, container, e.ValueFrom); err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
		} else {
			value = expandRefs([]string{value}, env)[0]
		}
		env = append(env, e.Name+"="+value)
	}
	return env, nil
}

func (c *Cluster) envSource(ctx context.Context, pod *corev1.Pod, container *corev1.Container, src *corev1.EnvVarSource) (string, error) {
	switch {
	case src.FieldRef != nil:
		return podField(pod, src.FieldRef.FieldPath)
	case src.ResourceFieldRef != nil:
		return resourceField(container, src.ResourceFieldRef)
	case src.SecretKeyRef != nil:
		s, err := c.Clientset.CoreV1().Secrets(pod.Namespace).Get(ctx, src.SecretKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("reading Secret %s: %w", src.SecretKeyRef.Name, err)
		}
		return string(s.Data[src.SecretKeyRef.Key]), nil
	case src.ConfigMapKeyRef != nil:
		cm, err := c.Clientset.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, src.ConfigMapKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("reading ConfigMap %s: %w", src.ConfigMapKeyRef.Name, err)
		}
		return cm.Data[src.ConfigMapKeyRef.Key], nil
	default:
		return "", errors.New("unsupported valueFrom")
	}
}

// podField resolves a downward-API field of a local pod.
func podField(pod *corev1.Pod, field string) (string, error) {
	switch field {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.serviceAccountName":
		return serviceAccountName(pod), nil
	case "spec.nodeName":
		return "localhost", nil
	case "status.podIP", "status.hostIP":
		return "127.0.0.1", nil
	}
	for prefix, m := range map[string]map[string]string{"metadata.labels": pod.Labels, "metadata.annotations": pod.Annotations} {
		if key, ok := strings.CutPrefix(field, prefix+"['"); ok {
			return m[strings.TrimSuffix(key, "']")], nil
		}
	}
	return "", fmt.Errorf("unsupported fieldRef %s", field)
}

// resourceField resolves a resourceFieldRef against the container's resources.
func resourceField(c *corev1.Container, ref *corev1.ResourceFieldSelector) (string, error) {
	kind, name, ok := strings.Cut(ref.Resource, ".")
	if !ok {
		return "", fmt.Errorf("unsupported resourceFieldRef %s", ref.Resource)
	}
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		return "", fmt.Errorf("the container sets no %s (a kubelet would use the node's allocatable)", ref.Resource)
	}
	divisor := ref.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	if name == string(corev1.ResourceCPU) {
		return strconv.FormatInt((q.MilliValue()+divisor.MilliValue()-1)/divisor.MilliValue(), 10), nil
	}
	return strconv.FormatInt((q.Value()+divisor.Value()-1)/divisor.Value(), 10), nil
}

// expandRefs replaces $(NAME) with NAME's value in env; $$(NAME) escapes.
func expandRefs(args, env []string) []string {
	values := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		values[k] = v
	}
	out := make([]string, len(args))
	for i, a := range args {
		var b strings.Builder
		for j := 0; j < len(a); j++ {
			if a[j] == '$' && j+1 < len(a) && a[j+1] == '$' {
				b.WriteByte('$')
				j++
				continue
			}
			if a[j] == '$' && j+1 < len(a) && a[j+1] == '(' {
				if end := strings.IndexByte(a[j:], ')'); end > 0 {
					if v, ok := values[a[j+2:j+end]]; ok {
						b.WriteString(v)
						j += end
						continue
					}
				}
			}
			b.WriteByte(a[j])
		}
		out[i] = b.String()
	}
	return out
}
